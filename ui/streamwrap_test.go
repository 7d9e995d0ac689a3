package ui

import (
	"math/rand"
	"strings"
	"testing"

	"latch/themes"
)

// streamLines is every line a stream shows, in order.
func streamLines(s *mdStream) []string {
	var out []string
	for _, seg := range s.segments() {
		out = append(out, seg...)
	}
	return out
}

// TestStreamTailMatchesWholeWrap streams text in random pieces, split
// anywhere (inside runes, between CR and LF): after every piece, the lines
// shown are the lines of the same text laid out at once, so freezing the
// rows of a growing line never changes what is shown.
func TestStreamTailMatchesWholeWrap(t *testing.T) {
	if testing.Short() {
		t.Skip("long (60 random replies of 3,000 bytes streamed and wrapped): make test-e2e runs it")
	}
	st := themes.Default()
	r := newMDRenderer("dark")
	words := []string{"word", "a", "longerword", "ｗｉｄｅ", "e\u0301", "👍🏽", "x-y", "\t", "  ", "\x1b[31m", "\r", "\r\n", "\n",
		strings.Repeat("b", 150), strings.Repeat("é", 90), "\u00a0", "\u3000", "\\", "`code`"}
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 60; round++ {
		var b strings.Builder
		for b.Len() < 3000 {
			b.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(3) == 0 {
				b.WriteByte(' ')
			}
		}
		text := b.String()
		if round%2 == 0 {
			text = strings.ReplaceAll(text, "\n", " ") // one long line
		}
		width := 20 + rng.Intn(100)
		plain := round%3 == 0
		mk := func() *mdStream {
			if plain {
				return &mdStream{width: width, plain: true, indent: "┊ ", style: st.Chat.Thinking.Render}
			}
			return &mdStream{width: width}
		}
		inc := mk()
		for i := 0; i < len(text); {
			n := 1 + rng.Intn(40)
			if rng.Intn(10) == 0 {
				n = 1 + rng.Intn(1000)
			}
			n = min(n, len(text)-i)
			inc.append(r, text[i:i+n])
			i += n
			whole := mk()
			whole.append(r, text[:i])
			if got, want := strings.Join(streamLines(inc), "\n"), strings.Join(streamLines(whole), "\n"); got != want {
				t.Fatalf("round %d, width %d, after %d bytes: streamed lines differ from the whole text's\nstreamed:\n%s\nwhole:\n%s",
					round, width, i, got, want)
			}
		}
		for _, l := range streamLines(inc) {
			if w := ansiWidth(l); w > width {
				t.Fatalf("round %d: a line is %d cells wide at width %d: %q", round, w, width, l)
			}
		}
	}
}

// TestGreedyWrap: rows fit, keep every non-space character in order, and
// wrapping from a row's start gives the rows from there on.
func TestGreedyWrap(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	words := []string{"word", "a", "ｗｉｄｅ", "e\u0301", "👍🏽", "x-y", "    ", strings.Repeat("b", 70), "\u3000", "\u00a0", "é"}
	squeeze := func(s string) string { return strings.Join(strings.FieldsFunc(s, isWrapSpace), "") }
	for round := 0; round < 300; round++ {
		var b strings.Builder
		for n := rng.Intn(60); n >= 0; n-- {
			b.WriteString(words[rng.Intn(len(words))])
			if rng.Intn(2) == 0 {
				b.WriteByte(' ')
			}
		}
		s, w := b.String(), 10+rng.Intn(60)
		rows, starts := greedyWrap(s, w)
		if squeeze(strings.Join(rows, "")) != squeeze(s) {
			t.Fatalf("w %d: %q wrapped to %q loses text", w, s, rows)
		}
		for i, r := range rows {
			if ansiWidth(r) > w {
				t.Fatalf("w %d: row %q of %q is wider", w, r, s)
			}
			rest, _ := greedyWrap(s[starts[i]:], w)
			if strings.Join(rest, "\n") != strings.Join(rows[i:], "\n") {
				t.Fatalf("w %d: wrapping %q from row %d gives\n%q, want\n%q", w, s, i, rest, rows[i:])
			}
		}
	}
}

// TestLongMarkdownBlockLaidOutAsItGrows streams a markdown reply whose
// unfinished block grows past maxLiveBlock (drawn laid out, not rendered,
// from then on), then ends and another grows past it: after every piece,
// the lines shown are the lines of the same text taken at once.
func TestLongMarkdownBlockLaidOutAsItGrows(t *testing.T) {
	r := newMDRenderer("dark")
	rng := rand.New(rand.NewSource(2))
	var b strings.Builder
	for b.Len() < 2*maxLiveBlock+5000 {
		if b.Len() > maxLiveBlock+3000 && !strings.Contains(b.String(), "\n\n") {
			b.WriteString("\n\n```go\nfunc f() {}\n") // a block ends; a code block grows long
		}
		b.WriteString(strings.Repeat("word ", 1+rng.Intn(60)))
		b.WriteString([]string{"\n", "longerword ", "", "- item\n"}[rng.Intn(4)])
	}
	text := b.String()
	const width = 90
	inc := &mdStream{width: width}
	for i := 0; i < len(text); {
		n := min(200+rng.Intn(1800), len(text)-i)
		inc.append(r, text[i:i+n])
		i += n
		whole := &mdStream{width: width}
		whole.append(r, text[:i])
		if got, want := strings.Join(streamLines(inc), "\n"), strings.Join(streamLines(whole), "\n"); got != want {
			t.Fatalf("after %d bytes: streamed lines differ from the whole text's\nstreamed:\n%s\nwhole:\n%s", i, got, want)
		}
	}
	if !inc.laidOut || inc.src.Len()-inc.cut <= maxLiveBlock || inc.cut == 0 {
		t.Fatalf("the test's text did not end in a second block longer than maxLiveBlock (cut at %d of %d)", inc.cut, inc.src.Len())
	}
}
