package ui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/muesli/termenv"

	"latch/session/ollamatest"
)

// TestChunkedRenderIsTheDocumentsRender: a reply rendered chunk by chunk
// (each block kept, the lines between blocks learnt) is byte for byte
// what glamour draws for the whole document, for replies of every
// construct with and without blank lines between them, a loose list, a
// table in a list, link references, in colour and without, at three
// widths; and rendering the reply again finds every chunk kept.
func TestChunkedRenderIsTheDocumentsRender(t *testing.T) {
	corpus := []string{
		strings.Join(replyParts, ""),
		ollamatest.Markdown(600),
		"para\n- list\n- more\npara after\n\n# h\npara\n## h2\n```\ncode\n```\npara\n***\nafter rule\n\nsetext\n===\n\n<div>html</div>\n\n> quote\n> - x\n\nterm\n: def\n",
		"1. a\n\n2. b\n\n   para in b\n\n3. c\n\ntext",
		"- [ ] task\n- [x] done\n\n| a | b |\n|---|---|\n| 1 | 2 |\ntext after table\n",
		"1. one\n3. three\n| Name | Tokens |\n|------|-------:|\n| up | 12 |\n\nProse after.\n\n# A heading\n",
		"Title\n-----\n\nSee [the docs][d].\n\n[d]: https://example.org\n",
		"Para one.\n\n\n\nPara two after many blanks.\n\n    code a\n\n    code b\n\nend",
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		r := randomReply(rng)
		if rng.IntN(2) == 0 {
			r = strings.Replace(r, "\n\n", "\n", 1+rng.IntN(3))
		}
		corpus = append(corpus, r)
	}
	for _, prof := range []termenv.Profile{termenv.ANSI256, termenv.Ascii} {
		p, err := newMDPipeline("dark", prof)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{36, 76, 116} {
			for i, c := range corpus {
				// chroma picks the colour of a code comment among equals
				// at random (two renders of one document differ), so the
				// corpus has none.
				c = strings.ReplaceAll(c, "// ", "")
				want, err := p.renderDoc([]byte(c), w)
				if err != nil {
					t.Fatal(err)
				}
				for pass := range 2 {
					got, err := p.render([]byte(c), w, true, false)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Fatalf("profile %v, width %d, reply %d, pass %d: the chunked render differs from the document's:\n%q\nwant\n%q", prof, w, i, pass, got, want)
					}
				}
			}
		}
	}
}

// TestStreamedBlocksAreRenderedOnce: when a streamed reply ends, its
// render (the whole reply, what a one-shot render draws) finds the
// blocks it streamed kept: glamour renders none of them again.
func TestStreamedBlocksAreRenderedOnce(t *testing.T) {
	r := newMDRenderer("dark")
	md := strings.ReplaceAll(ollamatest.Markdown(1500), "// ", "")
	s := &mdStream{width: 120}
	for _, tk := range ollamatest.Tokens(md) {
		s.append(r, tk.Content)
	}
	before := len(r.p.chunks.cur) + len(r.p.chunks.old)
	r.render(sanitizeText(md), 120)
	added := len(r.p.chunks.cur) + len(r.p.chunks.old) - before
	// The last block was never finished while streaming, and a block
	// after a table starts as a document's first block does.
	cuts, _ := blankCuts([]byte(md))
	tables := strings.Count(md, "\n\n|")
	t.Logf("%d chunks, %d tables, %d rendered again", len(cuts)+1, tables, added)
	if limit := 1 + tables; added > limit {
		t.Errorf("the reply's render rendered %d of its %d chunks again, want at most %d", added, len(cuts)+1, limit)
	}
}
