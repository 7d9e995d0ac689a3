package ui

import (
	"bytes"
	"strings"

	"github.com/yuin/goldmark/ast"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// A reply is rendered in chunks: the runs of lines between blank lines
// outside a code fence, as a streaming reply's finished blocks are cut
// (mdStream). Each chunk is rendered on its own and kept, keyed by its
// text, so that the reply's render when it ends (the whole reply as one
// document, what a one-shot render draws) finds every block it streamed
// already rendered: a reply's blocks are rendered once, not twice.
//
// A chunk is rendered alone only where that draws what the document
// would: its blocks are of the kinds whose render does not depend on
// their neighbours but for the blank line between them (paragraphs,
// headings, lists, quotes, code, tables, rules), no block runs across
// the blank line that ends it (a loose list, code indented past a blank
// line: the chunks it spans are one), and the document defines no link
// reference (a link in one chunk may name a definition in another).
// Otherwise the whole document is rendered at once, as before.

// glamour writes styled blank lines between two blocks: what ends the
// block before (a reset after a heading) and what starts the block after
// (the colour a heading's margin takes). A chunk's render keeps both,
// learnt by rendering it between two plain paragraphs (chunkSentinel):
// between chunks a and b go a's end and b's start. A block that is the
// first of its document, or follows a table (renderDoc renders each table
// on its own), starts its first line otherwise: that is another render of
// the chunk, kept apart (chunkKey.first).

// chunkBudget bounds the bytes each generation of the chunk cache holds.
const chunkBudget = 2 << 20

// chunkCache keeps rendered chunks in two generations: a chunk found in
// the older one moves to the newer; when the newer is over the budget it
// becomes the older, and what was older is dropped.
type chunkCache struct {
	cur, old map[chunkKey]chunkRender
	size     int
	plain    map[int]string // the lines between two paragraphs, by wrap
	heads    map[sigKey]gapHead
	tails    map[sigKey]string
}

// chunkKey is a chunk's text (without the blank lines around it), the
// wrap width it was rendered at, and whether it starts its document.
type chunkKey struct {
	src   string
	wrap  int
	first bool
}

// chunkRender is a chunk's lines, and its parts of the lines glamour puts
// between it and the blocks around it: before (the start of its gap; none
// for a first chunk) and after (the end).
type chunkRender struct{ before, out, after string }

func (c *chunkCache) get(k chunkKey) (chunkRender, bool) {
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	v, ok := c.old[k]
	if ok {
		c.put(k, v)
	}
	return v, ok
}

func (c *chunkCache) put(k chunkKey, v chunkRender) {
	if c.cur == nil || c.size > chunkBudget {
		c.old, c.cur, c.size = c.cur, map[chunkKey]chunkRender{}, 0
	}
	c.cur[k] = v
	c.size += len(k.src) + len(v.before) + len(v.out) + len(v.after)
}

// render renders src wrapped at wrap cells, as renderDoc does, chunk by
// chunk where that draws the same (see above). after renders src as it
// is drawn after another block (its first line as renderDoc draws it
// there), without the lines between. keep stores the chunks it renders
// for later; without it (a streaming reply's unfinished block, drawn
// once and then replaced) a chunk not kept yet is not rendered on its
// own: the whole is rendered at once.
func (p *mdPipeline) render(src []byte, wrap int, keep, after bool) (string, error) {
	if !keep && !after {
		if ends, _ := blankCuts(src); len(ends) == 0 {
			return p.renderDoc(src, wrap) // one chunk: not parsed twice
		}
	}
	cuts, ok := p.chunkCuts(src)
	if !ok || len(cuts) < 2 && !keep && !after {
		return p.renderDoc(src, wrap)
	}
	// The chunks' renders, and what goes before each (the lines between
	// it and the chunk before), are gathered first and joined into a
	// string of the exact size: the lines drawn keep it, and a builder's
	// doubling would keep up to twice that. A single chunk's render is
	// the result as it is, the string the cache holds, not a copy.
	outs := make([]string, 0, 2*len(cuts))
	var prev chunkRender
	prevTable := false
	from := 0
	for i, c := range cuts {
		chunk := trimBlankLines(src[from:c.end])
		from = c.end
		first := (i == 0 && !after) || c.table || prevTable
		k := chunkKey{string(chunk), wrap, first}
		r, ok := p.chunks.get(k)
		if !ok {
			if !keep {
				return p.renderDoc(src, wrap)
			}
			var err error
			if r, ok, err = p.renderChunk(chunk, wrap, first, c.lastTable); err != nil {
				return "", err
			}
			if !ok {
				return p.renderDoc(src, wrap)
			}
			p.chunks.put(k, r)
		}
		switch {
		case i == 0:
		case first:
			outs = append(outs, "\n\n") // renderDoc's join around a table
		default:
			outs = append(outs, "\n"+prev.after+r.before+"\n")
		}
		outs = append(outs, r.out)
		prev, prevTable = r, c.lastTable
	}
	if len(outs) == 1 {
		return outs[0], nil
	}
	size := 0
	for _, s := range outs {
		size += len(s)
	}
	var b strings.Builder
	b.Grow(size)
	for _, s := range outs {
		b.WriteString(s)
	}
	return b.String(), nil
}

// renderChunk renders one chunk, and its parts of the lines glamour puts
// between blocks (see above); false when they cannot be told apart.
// Nothing follows a chunk that ends in an open fence, and a table is
// followed as a first block is preceded: the chunk has no end part then.
//
// The parts depend on how the chunk starts and ends (the kinds of its
// first and last blocks, the styles its first and last lines start and
// end in), not on its text: they are learnt once for each such start
// and end, from a render of the chunk between two paragraphs, and the
// chunk is otherwise rendered alone.
func (p *mdPipeline) renderChunk(chunk []byte, wrap int, first, lastTable bool) (chunkRender, bool, error) {
	out, err := p.renderDoc(chunk, wrap)
	if err != nil || out == "" {
		return chunkRender{}, false, err
	}
	closed := !lastTable && !openFence(chunk)
	r := chunkRender{out: out}
	if first && !closed {
		return r, true, nil
	}
	headSig, tailSig := p.chunkSigs(chunk, out)
	hk, tk := sigKey{wrap, headSig}, sigKey{wrap, tailSig}
	head, okH := p.chunks.heads[hk]
	tail, okT := p.chunks.tails[tk]
	if !first && !okH || closed && !okT {
		var ok bool
		if head, tail, ok, err = p.learnGaps(chunk, out, wrap, closed); !ok || err != nil {
			return chunkRender{}, false, err
		}
		if p.chunks.heads == nil {
			p.chunks.heads, p.chunks.tails = map[sigKey]gapHead{}, map[sigKey]string{}
		}
		p.chunks.heads[hk] = head
		if closed {
			p.chunks.tails[tk] = tail
		}
	}
	if !first {
		r.out, r.before = head.prefix+out, head.before
	}
	if closed {
		r.after = tail
	}
	return r, true, nil
}

// gapHead is what a chunk drawn after another block starts with: the
// chunk's part of the gap, and what its first line starts with there.
type gapHead struct{ before, prefix string }

// sigKey names a chunk's start or end (chunkSigs) at a wrap width.
type sigKey struct {
	wrap int
	sig  string
}

// learnGaps renders chunk, which renders alone as out, between two
// paragraphs (only after one when closed is false) and tells apart its
// parts of the gaps.
func (p *mdPipeline) learnGaps(chunk []byte, out string, wrap int, closed bool) (gapHead, string, bool, error) {
	plain, ok := p.chunks.plain[wrap]
	if !ok {
		doc, err := p.renderDoc([]byte(chunkSentinel+"\n\n"+chunkSentinel), wrap)
		if err != nil {
			return gapHead{}, "", false, err
		}
		lines := strings.Split(doc, "\n")
		if len(lines) < 3 {
			return gapHead{}, "", false, nil
		}
		plain = strings.Join(lines[1:len(lines)-1], "\n")
		if p.chunks.plain == nil {
			p.chunks.plain = map[int]string{}
		}
		p.chunks.plain[wrap] = plain
	}
	src := append([]byte(chunkSentinel+"\n\n"), chunk...)
	if closed {
		src = append(append(src, "\n\n"...), chunkSentinel...)
	}
	doc, err := p.renderDoc(src, wrap)
	if err != nil {
		return gapHead{}, "", false, err
	}
	lines := strings.Split(doc, "\n")
	body := strings.Split(out, "\n")
	// sentinel, gap, the chunk's lines, then (closed) gap, sentinel
	lo, hi := 1, len(lines)
	if closed {
		hi--
	}
	if hi <= lo || !strings.Contains(lines[0], chunkSentinel) || closed && !strings.Contains(lines[hi], chunkSentinel) {
		return gapHead{}, "", false, nil
	}
	gapAfter := 0
	if closed {
		for gapAfter < hi-lo && isBlank(lines[hi-1-gapAfter]) {
			gapAfter++
		}
	}
	start := hi - gapAfter - len(body)
	if start <= lo || gapAfter == 0 && closed {
		return gapHead{}, "", false, nil
	}
	for i := 1; i < len(body); i++ {
		if lines[start+i] != body[i] {
			return gapHead{}, "", false, nil
		}
	}
	firstLine := lines[start]
	if !strings.HasSuffix(firstLine, body[0]) {
		return gapHead{}, "", false, nil
	}
	for _, l := range lines[lo:start] {
		if !isBlank(l) {
			return gapHead{}, "", false, nil
		}
	}
	head := gapHead{before: strings.Join(lines[lo:start], "\n"), prefix: strings.TrimSuffix(firstLine, body[0])}
	tail := ""
	if closed {
		gap := strings.Join(lines[hi-gapAfter:hi], "\n")
		if !strings.HasSuffix(gap, plain) {
			return gapHead{}, "", false, nil
		}
		tail = strings.TrimSuffix(gap, plain)
	}
	return head, tail, true, nil
}

// chunkSigs names how a chunk starts and ends: the kinds of the blocks
// down its first and its last branch (a heading's level, a list's kind),
// and the escape sequences its first line starts and its last line ends
// with.
func (p *mdPipeline) chunkSigs(chunk []byte, out string) (head, tail string) {
	doc := p.md.Parser().Parse(text.NewReader(chunk))
	branch := func(n ast.Node, next func(ast.Node) ast.Node) string {
		var b strings.Builder
		for ; n != nil && n.Type() == ast.TypeBlock; n = next(n) {
			b.WriteString(n.Kind().String())
			switch n := n.(type) {
			case *ast.Heading:
				b.WriteByte(byte('0' + n.Level))
			case *ast.List:
				b.WriteByte(n.Marker)
			case *ast.FencedCodeBlock:
				b.Write(n.Language(chunk))
			}
			b.WriteByte('>')
		}
		return b.String()
	}
	lines := strings.Split(out, "\n")
	head = branch(doc.FirstChild(), ast.Node.FirstChild) + "|" + leadingEscapes(lines[0])
	tail = branch(doc.LastChild(), ast.Node.LastChild) + "|" + trailingEscapes(lines[len(lines)-1])
	return head, tail
}

// leadingEscapes is the escape sequences l starts with.
func leadingEscapes(l string) string {
	i := 0
	for i < len(l) && l[i] == '\x1b' {
		j := strings.IndexByte(l[i:], 'm')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return l[:i]
}

// trailingEscapes is the escape sequences l ends with.
func trailingEscapes(l string) string {
	end := len(l)
	for end > 0 && l[end-1] == 'm' {
		j := strings.LastIndexByte(l[:end], '\x1b')
		if j < 0 || strings.ContainsAny(l[j+1:end-1], " \x1b") {
			break
		}
		end = j
	}
	return l[end:]
}

// chunkSentinel is the paragraph renderChunk puts around a chunk.
const chunkSentinel = "zqxjzqxj"

// trimBlankLines drops the blank lines at both ends of src, keeping the
// newline that ends its last line.
func trimBlankLines(src []byte) []byte {
	for len(src) > 0 {
		i := indexByte(src, '\n')
		if strings.TrimSpace(string(src[:i])) != "" || i == len(src) {
			break
		}
		src = src[i+1:]
	}
	for {
		body := strings.TrimRight(string(src), " \t\r")
		if !strings.HasSuffix(body, "\n\n") && !strings.HasSuffix(body, "\n") {
			return src
		}
		j := strings.LastIndexByte(body[:len(body)-1], '\n')
		if strings.TrimSpace(body[j+1:]) != "" {
			return src[:len(body)]
		}
		src = src[:j+1]
		if j < 0 {
			return src
		}
	}
}

// cut is where a chunk ends (after its last line's newline; the last
// chunk's at the end of the source), and whether it starts with a table.
type cut struct {
	end              int
	table, lastTable bool // it starts, it ends with a table
}

// chunkCuts returns src's chunks, or false when src must be rendered as
// one document.
func (p *mdPipeline) chunkCuts(src []byte) ([]cut, bool) {
	ends, _ := blankCuts(src)
	ends = append(ends, len(src))
	ctx := parser.NewContext()
	doc := p.md.Parser().Parse(text.NewReader(src), parser.WithContext(ctx))
	if len(ctx.References()) > 0 {
		return nil, false
	}
	type span struct {
		lo, hi int
		table  bool
	}
	var spans []span
	across := make(map[int]bool)
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if !chunkable(n) {
			return nil, false
		}
		lo, hi, ok := contentSpan(n)
		if !ok {
			continue
		}
		_, table := n.(*extast.Table)
		spans = append(spans, span{lo, hi, table})
		for _, c := range ends {
			if lo < c && c < hi {
				across[c] = true // a block runs across the cut
			}
		}
	}
	cuts := make([]cut, 0, len(ends))
	start, next := 0, 0
	for _, end := range ends {
		if across[end] {
			continue
		}
		for next < len(spans) && spans[next].lo < start {
			next++
		}
		table := next < len(spans) && spans[next].lo < end && spans[next].table
		last := next
		for last+1 < len(spans) && spans[last+1].lo < end {
			last++
		}
		lastTable := last < len(spans) && spans[last].lo >= start && spans[last].lo < end && spans[last].table
		cuts = append(cuts, cut{end: end, table: table, lastTable: lastTable})
		start = end
	}
	return cuts, true
}

// blankCuts returns the starts of the lines that follow a blank line
// outside a code fence (the first line aside), and whether a fence is
// still open at the end of src.
func blankCuts(src []byte) ([]int, bool) {
	var cuts []int
	fence := ""
	blank := false
	for i := 0; i < len(src); {
		end := i + indexByte(src[i:], '\n')
		line := string(src[i:end])
		trimmed := strings.TrimSpace(line)
		indent := len(line) - len(strings.TrimLeft(line, " "))
		switch {
		case fence != "":
			if indent < 4 && strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
		case trimmed == "":
			blank = true
			i = min(end+1, len(src))
			continue
		default:
			if blank && i > 0 {
				cuts = append(cuts, i)
			}
			if indent < 4 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
				fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, trimmed[:1]))]
			}
		}
		blank = false
		i = min(end+1, len(src))
	}
	return cuts, fence != ""
}

// openFence reports whether a code fence is open at the end of src.
func openFence(src []byte) bool {
	_, open := blankCuts(src)
	return open
}

// chunkable reports whether a top-level block renders alone as it does in
// its document. A table inside another block (a list's lazy line) is not:
// glamour ends the block with blank lines of its own then.
func chunkable(n ast.Node) bool {
	switch n.(type) {
	case *ast.Paragraph, *ast.Heading, *ast.List, *ast.Blockquote, *ast.FencedCodeBlock,
		*ast.CodeBlock, *ast.ThematicBreak:
	case *extast.Table:
		return true
	default:
		return false
	}
	nested := false
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if _, ok := c.(*extast.Table); ok && entering {
			nested = true
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	return !nested
}

// contentSpan is the first and last byte of the source lines of n and the
// blocks in it.
func contentSpan(n ast.Node) (lo, hi int, ok bool) {
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || c.Type() != ast.TypeBlock {
			return ast.WalkContinue, nil
		}
		ls := c.Lines()
		for i := 0; i < ls.Len(); i++ {
			s := ls.At(i)
			if !ok || s.Start < lo {
				lo = s.Start
			}
			if !ok || s.Stop > hi {
				hi = s.Stop
			}
			ok = true
		}
		return ast.WalkContinue, nil
	})
	return lo, hi, ok
}

// indexByte is bytes.IndexByte, or len(b) when c is not in b.
func indexByte(b []byte, c byte) int {
	if i := bytes.IndexByte(b, c); i >= 0 {
		return i
	}
	return len(b)
}
