package ollamatest

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tokens splits text into small, realistic content deltas, roughly one per
// model token: words (long ones in pieces) and punctuation, with their
// leading spaces kept, digits in groups of up to three, runs of newlines on
// their own: "Hello! I am" → "Hello", "!", " I", " am". Joining the
// Content of the chunks gives back text exactly, and no chunk splits a
// UTF-8 sequence.
func Tokens(text string) []Chunk {
	parts := split(text)
	out := make([]Chunk, len(parts))
	for i, p := range parts {
		out[i] = Chunk{Content: p}
	}
	return out
}

// ThinkingTokens is like Tokens but fills Chunk.Thinking.
func ThinkingTokens(text string) []Chunk {
	parts := split(text)
	out := make([]Chunk, len(parts))
	for i, p := range parts {
		out[i] = Chunk{Thinking: p}
	}
	return out
}

// TextTurn returns Turn{Chunks: Tokens(text)}.
func TextTurn(text string) Turn {
	return Turn{Chunks: Tokens(text)}
}

const (
	wholeWord = 8 // words up to this many runes are one token
	wordPiece = 6 // longer words are cut in pieces of this many runes
	digitRun  = 3
	punctRun  = 3 // "```", "**", "---" are one token
)

type class int

const (
	classWord class = iota
	classDigit
	classPunct
)

func classOf(r rune) class {
	switch {
	case r >= '0' && r <= '9':
		return classDigit
	case r == '_' || unicode.IsLetter(r) || unicode.IsMark(r):
		return classWord
	}
	return classPunct
}

func isSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' }

// split is the tokenizer behind Tokens: runs of newlines, then, after any
// leading spaces, one word piece, digit run or punctuation run.
func split(s string) []string {
	var toks []string
	i := 0
	for i < len(s) {
		start := i
		if s[i] == '\n' {
			for i < len(s) && s[i] == '\n' {
				i++
			}
			toks = append(toks, s[start:i])
			continue
		}
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		if i < len(s) && s[i] != '\n' {
			i += tokenAt(s[i:])
		}
		toks = append(toks, s[start:i])
	}
	return toks
}

// tokenAt returns the length of the token s starts with (s starts with
// neither a space nor a newline).
func tokenAt(s string) int {
	r, w := utf8.DecodeRuneInString(s)
	c := classOf(r)
	if r == utf8.RuneError && w == 1 {
		c = classPunct
	}
	switch c {
	case classWord:
		return wordPieceAt(s)
	case classDigit:
		n := 0
		for n < digitRun && n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		return n
	}
	i := w
	for n := 1; n < punctRun && i < len(s); n++ {
		r2, w2 := utf8.DecodeRuneInString(s[i:])
		if r2 != r || w2 != w || r == utf8.RuneError {
			break
		}
		i += w2
	}
	return i
}

// wordPieceAt returns the length of the word s starts with when it is one
// token, or of its first piece when it is longer. Only whether the word
// fits in one token is measured, so a long word costs no more than a short
// one.
func wordPieceAt(s string) int {
	j, n := 0, 0
	for j < len(s) && n <= wholeWord {
		r, w := utf8.DecodeRuneInString(s[j:])
		if classOf(r) != classWord || (r == utf8.RuneError && w == 1) {
			break
		}
		j += w
		n++
	}
	if n <= wholeWord {
		return j
	}
	i := 0
	for range wordPiece {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// Markdown returns a deterministic markdown document of about n tokens (as
// counted by Tokens; at least n, at most a few dozen more): a title, then
// repeated, varied sections with headings, paragraphs with bold, italic and
// inline code, bullet and numbered lists, a fenced Go code block, a small
// table and a block quote. It is meant for streaming benchmarks, e.g.
// Turn{Chunks: Tokens(Markdown(3000)), Delay: time.Millisecond}.
func Markdown(n int) string {
	if n <= 0 {
		return ""
	}
	var b strings.Builder
	count := 0
	add := func(block string) {
		b.WriteString(block)
		count += len(split(block))
	}
	add("# Streaming benchmark\n\n")
	g := &wordGen{}
	for sec := 1; count < n; sec++ {
		blocks := []func() string{
			func() string { return fmt.Sprintf("## %d. %s\n\n", sec, g.title()) },
			func() string { return g.paragraph(3) + "\n\n" },
			func() string { return g.bullets(sec) },
			func() string { return g.paragraph(2) + "\n\n" },
			func() string { return codeBlock(sec) },
			func() string { return g.table(sec) },
			func() string { return "> " + g.sentence() + "\n\n" },
			func() string { return g.numbered(sec) },
		}
		for _, blk := range blocks {
			if count >= n {
				break
			}
			add(blk())
		}
	}
	return b.String()
}

var vocabulary = strings.Fields(`the model streams tokens to a terminal user interface while the
renderer keeps up with every delta and the viewport follows the bottom of the
conversation so that long answers remain readable even when the network is slow
and the server sends small chunks of text punctuation code and tables which must
be wrapped measured styled and redrawn quickly without blocking input handling or
losing the cursor position in the editor below`)

// wordGen is a tiny deterministic generator of English-looking text.
type wordGen struct{ state uint32 }

func (g *wordGen) next(n int) int {
	g.state = g.state*1664525 + 1013904223
	return int((g.state >> 8) % uint32(n))
}

func (g *wordGen) word() string { return vocabulary[g.next(len(vocabulary))] }

func (g *wordGen) words(n int) []string {
	w := make([]string, n)
	for i := range w {
		w[i] = g.word()
	}
	return w
}

func (g *wordGen) title() string {
	w := g.words(2 + g.next(3))
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ")
}

func (g *wordGen) sentence() string {
	w := g.words(8 + g.next(9))
	switch g.next(4) {
	case 0:
		i := g.next(len(w))
		w[i] = "**" + w[i] + "**"
	case 1:
		i := g.next(len(w))
		w[i] = "*" + w[i] + "*"
	case 2:
		i := g.next(len(w))
		w[i] = "`" + w[i] + "()`"
	}
	if g.next(3) == 0 {
		w[len(w)/2] += ","
	}
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	end := []string{".", ".", ".", "!", "?"}[g.next(5)]
	return strings.Join(w, " ") + end
}

func (g *wordGen) paragraph(sentences int) string {
	s := make([]string, sentences)
	for i := range s {
		s[i] = g.sentence()
	}
	return strings.Join(s, " ")
}

func (g *wordGen) bullets(sec int) string {
	var b strings.Builder
	for i := 0; i < 3+sec%2; i++ {
		fmt.Fprintf(&b, "- **%s**: %s\n", g.word(), strings.Join(g.words(4+g.next(5)), " "))
	}
	b.WriteString("\n")
	return b.String()
}

func (g *wordGen) numbered(sec int) string {
	var b strings.Builder
	for i := 1; i <= 2+sec%3; i++ {
		fmt.Fprintf(&b, "%d. %s\n", i, g.sentence())
	}
	b.WriteString("\n")
	return b.String()
}

func (g *wordGen) table(sec int) string {
	var b strings.Builder
	b.WriteString("| Name | Tokens | Notes |\n|------|-------:|-------|\n")
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "| %s | %d | *%s* |\n", g.word(), (sec*37+i*11)%500, g.word())
	}
	b.WriteString("\n")
	return b.String()
}

func codeBlock(sec int) string {
	return fmt.Sprintf("```go\n// step%d advances the stream by one token.\nfunc step%d(buf []string, tok string) []string {\n\tif tok == \"\" {\n\t\treturn buf\n\t}\n\treturn append(buf, tok) // %d\n}\n```\n\n", sec, sec, sec*7)
}
