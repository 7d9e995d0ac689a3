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

// longCodeReply is a reply with a line of Go and a line of shell wider
// than a 100-column screen, each in a fenced code block.
const longCodeReply = "Build it:\n\n```go\nfunc main() {\n" +
	"\tlog.Printf(\"connecting to %s with a timeout of %v and %d retries, then giving up for good\", host, timeout, retries)\n" +
	"}\n```\n\nThen run:\n\n```sh\n" +
	"curl -fsSL https://example.org/releases/latest/install.sh | sudo sh -s -- --prefix /usr/local --with-completions --quiet\n" +
	"```\n\nDone."

// longCodeTurn is the events of a turn whose reply is longCodeReply; when
// streamed, the reply comes as deltas cut at random points first.
func longCodeTurn(rng *rand.Rand, streamed bool) [][]session.Event {
	h := session.Header{Time: time.Unix(1_700_000_000, 0)}
	batches := [][]session.Event{{&session.UserMessage{Header: h, Turn: 1, Text: "how do I install it?"}}}
	if streamed {
		for _, d := range splitRandom(rng, longCodeReply) {
			batches = append(batches, []session.Event{&session.AssistantDelta{Header: h, Turn: 1, Text: d}})
		}
	}
	return append(batches, []session.Event{
		&session.AssistantMessage{Header: h, Turn: 1, Content: longCodeReply},
		&session.TurnDone{Header: h, Turn: 1, Reason: session.ReasonStop},
	})
}

// TestGoldenLongCodeLines: a code line wider than the screen goes on at
// the code block's indent, in the code's colours, at 60 and 100 columns,
// for Go and for shell. Streamed in pieces cut at random points, a frame
// after a few, the reply ends as the one-shot render draws it, and each
// character it shows is written about once (rows drawn while it streams
// stay as they are).
func TestGoldenLongCodeLines(t *testing.T) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	for _, size := range [][2]int{{60, 24}, {100, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
			t.Cleanup(srv.Close)
			sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
			play := func(streamed bool) (termRows, int) {
				rng := rand.New(rand.NewPCG(5, 11))
				log := &frameLog{}
				m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: log, SyncOutput: true})
				m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m.View()
				log.expect(m)
				batches := longCodeTurn(rng, streamed)
				for i := 0; i < len(batches); {
					for n := 1 + rng.IntN(6); n > 0 && i < len(batches); n-- {
						m.Update(eventsMsg{events: batches[i]})
						i++
					}
					m.View()
					log.expect(m)
				}
				term, written := make(termRows, size[1]), 0
				for i, frame := range log.frames {
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
				return term[1:], written
			}
			got, written := play(true)
			want, _ := play(false)
			for r := range got {
				if got[r] != want[r] {
					t.Errorf("row %d after streaming:\n %q\nthe one-shot render's:\n %q", r+2, got[r], want[r])
				}
			}
			shown := 0
			for _, r := range got {
				shown += visibleChars(r)
			}
			if ratio := float64(written) / float64(shown); ratio > 1.1 {
				t.Errorf("each character written %.2f times on average, want at most 1.1", ratio)
			}
			// The reply laid out wide enough for every line: the colour
			// each character of the code has.
			wide := newMDRenderer("dark").render(longCodeReply, 400)
			checkCodeContinues(t, got, wide, "func main", "log.Printf(", "}")
			checkCodeContinues(t, got, wide, "curl -fsSL", "curl -fsSL", "")
			golden.RequireEqual(t, []byte(strings.Join(got, "\n")+"\n"))
		})
	}
}

// checkCodeContinues checks the rows of a code line wider than the screen:
// the block's first row starts with first; the long line's first row with
// long, and each row after it up to a blank one or one starting with end
// starts at
// the block's indent, in the colour its text has in wide, the reply laid
// out without wrapping its code.
func checkCodeContinues(t *testing.T, rows, wide []string, first, long, end string) {
	t.Helper()
	find := func(from int, prefix string) (int, int) {
		for r := from; r < len(rows); r++ {
			text := ansi.Strip(rows[r])
			body := strings.TrimLeft(text, " ")
			if strings.HasPrefix(body, prefix) {
				return r, len(text) - len(body)
			}
		}
		t.Fatalf("no row starts with %q:\n%s", prefix, ansi.Strip(strings.Join(rows, "\n")))
		return 0, 0
	}
	top, indent := find(0, first)
	start, _ := find(top, long)
	stop := start + 1
	for stop < len(rows) && strings.TrimSpace(ansi.Strip(rows[stop])) != "" && (end == "" || !strings.HasPrefix(strings.TrimSpace(ansi.Strip(rows[stop])), end)) {
		stop++
	}
	if stop-start < 2 {
		t.Fatalf("the line starting %q takes %d row, want it wrapped", long, stop-start)
	}
	line := ""
	for _, l := range wide {
		if strings.Contains(ansi.Strip(l), long) {
			line = l
		}
	}
	for r := start + 1; r < stop; r++ {
		text := ansi.Strip(rows[r])
		body := strings.TrimLeft(text, " ")
		if got := len(text) - len(body); got != indent {
			t.Errorf("row %d, a continuation of %q, starts at column %d, want the block's indent, %d:\n%q", r+2, long, got+1, indent+1, text)
		}
		col := strings.Index(ansi.Strip(line), strings.TrimRight(body, " "))
		if col < 0 {
			t.Fatalf("row %d, %q, is not in the line %q", r+2, body, ansi.Strip(line))
		}
		if got, want := styleAt(rows[r], indent), styleAt(line, col); got != want || got == (sgr{}) {
			t.Errorf("row %d, a continuation of %q, starts in %+v, want the code's colour, %+v", r+2, long, got, want)
		}
	}
}

// styleAt is the style of the cell at col of a row.
func styleAt(row string, col int) sgr {
	var st sgr
	state, w := byte(0), 0
	for i := 0; i < len(row); {
		seq, width, n, next := ansi.DecodeSequence(row[i:], state, nil)
		state = next
		i += n
		switch {
		case width > 0:
			if w == col {
				return st
			}
			w += width
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
			st.apply(seq[2 : len(seq)-1])
		}
	}
	return st
}
