package ui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// replyParts are the constructs a streamed reply is made of, to be split
// anywhere.
var replyParts = []string{
	"# A heading\n\n",
	"## Second *level* heading\n\n",
	"Prose with **bold words**, *italic ones*, `inline code`, ~~struck~~ and a [link](https://example.org/page) in it, long enough to wrap on every width the chat has.\n\n",
	"An emphasis that runs **across several words and\na line break** then goes on, and _underscores_ too.\n\n",
	"- first item\n- second item with **bold**\n  - nested item\n  - another nested item that is long enough to wrap at eighty columns\n- third item\n\n",
	"1. one\n2. two with `code`\n3. three\n\n",
	"```go\nfunc main() {\n\tfmt.Println(\"hello, world\")\n\n\treturn\n}\n```\n\n",
	"| Name | Tokens | Notes |\n|------|-------:|-------|\n| up | 12 | *fine* |\n| a longer name | 3400 | with `code` |\n\n",
	"> A quoted sentence with a link <https://example.com>.\n\n",
	"Last words: zebra quokka.\n",
}

// randomReply is a reply of some of replyParts, in a random order.
func randomReply(rng *rand.Rand) string {
	var b strings.Builder
	for _, i := range rng.Perm(len(replyParts))[:4+rng.IntN(len(replyParts)-4)] {
		b.WriteString(replyParts[i])
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// splitRandom cuts s at random points (inside words, markers and runes).
func splitRandom(rng *rand.Rand, s string) []string {
	var out []string
	for i := 0; i < len(s); {
		n := min(1+rng.IntN(12), len(s)-i)
		out = append(out, s[i:i+n])
		i += n
	}
	return out
}

// thinking is the thinking trace of the first reply.
const thinking = "The person wants every construct. I will write them."

// chatTurn is the events of one turn with a tool call between two replies,
// the first with thinking; streamed, each reply comes as deltas first.
func chatTurn(rng *rand.Rand, a, b string, streamed bool) [][]session.Event {
	h := session.Header{Time: time.Unix(1_700_000_000, 0)}
	var batches [][]session.Event
	add := func(evs ...session.Event) { batches = append(batches, evs) }
	add(&session.UserMessage{Header: h, Turn: 1, Text: "show me everything"})
	if streamed {
		for _, d := range splitRandom(rng, thinking) {
			add(&session.ThinkingDelta{Header: h, Turn: 1, Text: d})
		}
		for _, d := range splitRandom(rng, a) {
			add(&session.AssistantDelta{Header: h, Turn: 1, Text: d})
		}
	}
	add(&session.AssistantMessage{Header: h, Turn: 1, Content: a, Thinking: thinking},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__read", Arguments: map[string]any{"path": "notes.md"}, ReadOnly: true},
		&session.ToolResultEvent{Header: h, Turn: 1, CallID: "c1", Tool: "fs__read", OK: true, Preview: "the notes", Size: 9})
	if streamed {
		for _, d := range splitRandom(rng, b) {
			add(&session.AssistantDelta{Header: h, Turn: 1, Round: 1, Text: d})
		}
	}
	add(&session.AssistantMessage{Header: h, Turn: 1, Round: 1, Content: b},
		&session.TurnDone{Header: h, Turn: 1, Reason: session.ReasonStop})
	return batches
}

// TestStreamedReplyEndsAsOneShot is a property test over a fixed set of
// seeds: replies made of every construct (prose, emphasis across chunks,
// lists, nested lists, code, tables, links, a heading, a quote), with
// thinking and a tool card between two replies, streamed in pieces cut at
// random points, one frame after each, at 80×24 and 120×40 (half of the
// runs resized to the other size mid-stream). After every frame the
// terminal holds the model's frame; at the end it holds exactly what a
// model given the whole turn at once draws; and, the repaints after a
// resize aside, each character the turn draws (a word's letters) is
// written at most 1.1 times on average: rows drawn while the reply
// streams stay as they are when it ends.
func TestStreamedReplyEndsAsOneShot(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	sizes := [][2]int{{80, 24}, {120, 40}}
	written, shown := 0, 0
	for seed := uint64(1); seed <= 24; seed++ {
		size := sizes[seed%2]
		resize := seed%4 >= 2
		t.Run(fmt.Sprintf("seed=%d/%dx%d/resize=%v", seed, size[0], size[1], resize), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 7))
			a, b := randomReply(rng), randomReply(rng)
			srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
			t.Cleanup(srv.Close)
			sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
			newModel := func(log *frameLog, w, h int) *Model {
				m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: log, SyncOutput: true})
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				m.View()
				log.expect(m)
				return m
			}
			log := &frameLog{}
			start := size
			if resize {
				start = sizes[(seed+1)%2]
			}
			m := newModel(log, start[0], start[1])
			batches := chatTurn(rng, a, b, true)
			for i := 0; i < len(batches); {
				if resize && i >= len(batches)/2 {
					m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
					m.View()
					log.expect(m)
					resize = false
				}
				// A frame after one to eight pieces, as frames come while
				// a model streams.
				for n := 1 + rng.IntN(8); n > 0 && i < len(batches); n-- {
					m.Update(eventsMsg{events: batches[i]})
					i++
				}
				m.View()
				log.expect(m)
			}
			term := make(termRows, start[1])
			for i, frame := range log.frames {
				if len(term) != len(log.want[i]) {
					term = make(termRows, len(log.want[i]))
				}
				repaint := bytes.Contains(frame, []byte(ansi.EraseEntireScreen))
				for row, w := range term.apply(t, frame) {
					if row >= 1 && row <= m.chat.height && !repaint {
						written += visibleChars(w[2])
					}
				}
				for r := range term {
					if term[r] != log.want[i][r] {
						t.Fatalf("after frame %d, row %d on the terminal:\n %q\nwant\n %q", i, r+1, term[r], log.want[i][r])
					}
				}
			}
			one := &frameLog{}
			om := newModel(one, size[0], size[1])
			for _, evs := range chatTurn(rng, a, b, false) {
				om.Update(eventsMsg{events: evs})
			}
			om.View()
			one.expect(om)
			want := one.want[len(one.want)-1]
			for r := range term {
				if term[r] != want[r] {
					t.Errorf("the final screen's row %d:\n %q\nthe one-shot render's:\n %q", r+1, term[r], want[r])
				}
			}
			// Everything the turn draws, once: the one-shot model on a
			// screen tall enough to hold it all.
			tall := &frameLog{}
			tm := newModel(tall, size[0], 300)
			for _, evs := range chatTurn(rng, a, b, false) {
				tm.Update(eventsMsg{events: evs})
			}
			tm.View()
			tall.expect(tm)
			for _, l := range tall.want[len(tall.want)-1][1 : tm.chat.height+1] {
				shown += visibleChars(l)
			}
			shown += visibleChars("┊ " + thinking) // shown whole while it streams
		})
	}
	ratio := float64(written) / float64(shown)
	t.Logf("%d characters written for turns that draw %d: each written %.2f times", written, shown, ratio)
	if ratio > 1.1 {
		t.Errorf("each character written %.2f times on average, want at most 1.1", ratio)
	}
}

// visibleChars counts the characters of a row that are not blank.
func visibleChars(row string) int {
	n := 0
	for _, r := range ansi.Strip(row) {
		if r != ' ' {
			n++
		}
	}
	return n
}

// TestGoldenStreamedReplyEnd: the screen after a turn streamed in pieces
// cut at random points (every construct, emphasis across the cuts, the
// thinking folded, a tool card between two replies), at 80×24 and 120×40,
// in 256 colours; the status line (which names the session) left out. It
// is the screen a model given the whole turn at once draws.
func TestGoldenStreamedReplyEnd(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	a := strings.Join(replyParts[:5], "")
	b := strings.TrimSuffix(strings.Join(replyParts[5:], ""), "\n")
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
			t.Cleanup(srv.Close)
			sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
			final := func(streamed bool) []string {
				log := &frameLog{}
				m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: log, SyncOutput: true})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				for _, evs := range chatTurn(rand.New(rand.NewPCG(3, 7)), a, b, streamed) {
					m.Update(eventsMsg{events: evs})
					if streamed {
						m.View()
					}
				}
				m.View()
				log.expect(m)
				term := make(termRows, size[1])
				for _, f := range log.frames {
					term.apply(t, f)
				}
				return term[1:]
			}
			got, want := final(true), final(false)
			for r := range got {
				if got[r] != want[r] {
					t.Errorf("row %d after streaming:\n %q\nthe one-shot render's:\n %q", r+2, got[r], want[r])
				}
			}
			golden.RequireEqual(t, []byte(strings.Join(got, "\n")+"\n"))
		})
	}
}
