package ui

import (
	"fmt"
	"strings"

	mdansi "github.com/charmbracelet/glamour/ansi"
	"github.com/charmbracelet/glamour/styles"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Replies are rendered by glamour's ANSI renderer in a goldmark pipeline
// of our own, built as glamour's TermRenderer builds its own (GFM,
// definition lists, heading IDs), with two changes it has no option for:
//
//   - an e-mail address is shown once (emailText): glamour shows an
//     autolinked address as its text followed by "mailto:" and the text;
//   - a table is as wide as its content, up to the width: glamour lays
//     every table out at the full width, so a two-column table of short
//     words spans the screen. Each table is rendered on its own, at the
//     width its cells need (tableWidth).

// mdPriority is the priority glamour gives its renderer.
const mdPriority = 1000

// mdPipeline parses and renders markdown in one glamour style and colour
// profile. Not goroutine-safe (glamour's renderer keeps state).
type mdPipeline struct {
	md     goldmark.Markdown
	opts   mdansi.Options            // all but WordWrap
	byWrap map[int]renderer.Renderer // one per wrap width
	chunks chunkCache                // rendered chunks (mdchunks.go)
}

// newMDPipeline is the pipeline for one of glamour's standard styles.
func newMDPipeline(style string, profile termenv.Profile) (*mdPipeline, error) {
	st, ok := styles.DefaultStyles[style]
	if !ok {
		return nil, fmt.Errorf("%s: style not found", style)
	}
	md := goldmark.New(
		goldmark.WithExtensions(extension.GFM, extension.DefinitionList),
		goldmark.WithParserOptions(parser.WithAutoHeadingID(),
			parser.WithASTTransformers(util.Prioritized(emailText{}, 0))),
	)
	return &mdPipeline{md: md, byWrap: map[int]renderer.Renderer{},
		opts: mdansi.Options{ColorProfile: profile, Styles: *st, PreserveNewLines: true, ChromaFormatter: chromaFormatter}}, nil
}

// renderer is the ANSI renderer wrapping at wrap cells.
func (p *mdPipeline) renderer(wrap int) renderer.Renderer {
	r, ok := p.byWrap[wrap]
	if !ok {
		o := p.opts
		o.WordWrap = wrap
		r = renderer.NewRenderer(renderer.WithNodeRenderers(util.Prioritized(mdansi.NewRenderer(o), mdPriority)))
		p.byWrap[wrap] = r
	}
	return r
}

// renderDoc renders src wrapped at wrap cells (glamour's word wrap: the
// document's margins inside it) as one document, each table at its
// content's width.
func (p *mdPipeline) renderDoc(src []byte, wrap int) (string, error) {
	doc := p.md.Parser().Parse(text.NewReader(src))
	var blocks []ast.Node
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		blocks = append(blocks, n)
	}
	var parts []string
	var run []ast.Node
	flush := func(nodes []ast.Node, w int) error {
		if len(nodes) == 0 {
			return nil
		}
		d := ast.NewDocument()
		for _, n := range nodes {
			d.AppendChild(d, n)
		}
		var b strings.Builder
		if err := p.renderer(w).Render(&b, src, d); err != nil {
			return err
		}
		if lines := trimBlank(strings.Split(b.String(), "\n")); len(lines) > 0 {
			parts = append(parts, strings.Join(lines, "\n"))
		}
		return nil
	}
	for _, n := range blocks {
		t, ok := n.(*extast.Table)
		if !ok {
			run = append(run, n)
			continue
		}
		if err := flush(run, wrap); err != nil {
			return "", err
		}
		run = nil
		// The document's margins (2 a side) are inside glamour's wrap.
		if err := flush([]ast.Node{t}, min(wrap, tableWidth(t, src)+2*len(margin))); err != nil {
			return "", err
		}
	}
	if err := flush(run, wrap); err != nil {
		return "", err
	}
	return strings.Join(parts, "\n\n"), nil
}

// tableWidth is the width a table's content needs as glamour lays it out:
// each column as wide as its widest cell, plus a space each side, and a
// rule between columns.
func tableWidth(t *extast.Table, src []byte) int {
	var cols []int
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		i := 0
		for cell := row.FirstChild(); cell != nil; cell = cell.NextSibling() {
			if i == len(cols) {
				cols = append(cols, 0)
			}
			cols[i] = max(cols[i], inlineWidth(cell, src))
			i++
		}
	}
	w := max(len(cols)-1, 0)
	for _, c := range cols {
		w += c + 2
	}
	return w
}

// inlineWidth is the width of a cell's text as shown: its words, and for
// a link the footnote mark glamour puts after it in a table ("[1]").
func inlineWidth(n ast.Node, src []byte) int {
	w := 0
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			w += ansi.StringWidth(string(c.Segment.Value(src)))
		case *ast.String:
			w += ansi.StringWidth(string(c.Value))
		case *ast.AutoLink:
			w += ansi.StringWidth(string(c.URL(src))) + 4
			return ast.WalkSkipChildren, nil
		case *ast.Link, *ast.Image:
			w += 4
		case *ast.Emphasis:
			w += 2 * c.Level // the ascii style shows the * marks
		}
		return ast.WalkContinue, nil
	})
	return w
}

// emailText turns e-mail autolinks (ada@example.org, <ada@example.org>)
// into the text they are, shown once.
type emailText struct{}

// Transform replaces each e-mail autolink of doc with its text.
func (emailText) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	var links []*ast.AutoLink
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.AutoLink); ok && entering && l.AutoLinkType == ast.AutoLinkEmail {
			links = append(links, l)
		}
		return ast.WalkContinue, nil
	})
	for _, l := range links {
		// The label is a slice of the source: where it starts is where
		// its text segment does.
		label := l.Label(src)
		start := cap(src) - cap(label)
		if len(label) == 0 || start < 0 || start+len(label) > len(src) || &src[start] != &label[0] {
			continue
		}
		l.Parent().ReplaceChild(l.Parent(), l, ast.NewTextSegment(text.NewSegment(start, start+len(label))))
	}
}
