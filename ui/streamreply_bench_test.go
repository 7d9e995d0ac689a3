package ui

import (
	"io"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// BenchmarkStreamReply is the whole of one streamed reply as the chat
// draws it: the 3,000-token workload in 120×40, 256 colours, a frame after
// each 50 tokens (about the frame rate at 1,000 tokens a second) through
// the screen, then the reply's end. It reports the bytes written to the
// terminal and the frames per reply.
func BenchmarkStreamReply(b *testing.B) {
	lipgloss.SetColorProfile(termenv.ANSI256)
	b.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	b.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
	md := ollamatest.Markdown(3000)
	toks := ollamatest.Tokens(md)
	h := session.Header{Time: time.Now()}
	var out countingWriter
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: &out, SyncOutput: true})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		m.Update(eventsMsg{events: []session.Event{&session.UserMessage{Header: h, Turn: 1, Text: "write a long document"}}})
		m.View()
		for j := 0; j < len(toks); j += 50 {
			var evs []session.Event
			for _, tk := range toks[j:min(j+50, len(toks))] {
				evs = append(evs, &session.AssistantDelta{Header: h, Turn: 1, Text: tk.Content})
			}
			m.Update(eventsMsg{events: evs})
			m.View()
		}
		m.Update(eventsMsg{events: []session.Event{&session.AssistantMessage{Header: h, Turn: 1, Content: md},
			&session.TurnDone{Header: h, Turn: 1, Reason: session.ReasonStop}}})
		m.View()
		out.frames++
	}
	b.ReportMetric(float64(out.n)/float64(b.N), "B/reply")
	b.ReportMetric(float64(out.writes)/float64(b.N), "frames/reply")
}

// countingWriter counts what is written to it.
type countingWriter struct{ n, writes, frames int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.writes++
	return len(p), nil
}

var _ io.Writer = (*countingWriter)(nil)
