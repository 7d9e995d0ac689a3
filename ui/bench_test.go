package ui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// benchModel is a UI with history earlier messages, mid-way through a reply.
func benchModel(b *testing.B, history int) *Model {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	b.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h := session.Header{Time: time.Now()}
	md := ollamatest.Markdown(60)
	var evs []session.Event
	for i := 1; i <= history/2; i++ {
		evs = append(evs,
			&session.UserMessage{Header: h, Turn: i, Text: fmt.Sprintf("question %d", i)},
			&session.AssistantMessage{Header: h, Turn: i, Content: md},
			&session.TurnDone{Header: h, Turn: i, Reason: session.ReasonStop},
		)
	}
	evs = append(evs, &session.UserMessage{Header: h, Turn: history + 1, Text: "stream now"})
	m.Update(eventsMsg{events: evs})
	m.View()
	return m
}

// BenchmarkStreamToken is the cost of showing one streamed token (Update +
// View) with 0 and 1,000 earlier messages: it must not grow with history.
func BenchmarkStreamToken(b *testing.B) {
	tokens := ollamatest.Tokens(ollamatest.Markdown(3000))
	for _, history := range []int{0, 1000} {
		b.Run(fmt.Sprintf("history=%d", history), func(b *testing.B) {
			m := benchModel(b, history)
			turn := history + 1
			hd := session.Header{Time: time.Now()}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				ev := &session.AssistantDelta{Header: hd, Turn: turn, Text: tokens[i%len(tokens)].Content}
				m.Update(eventsMsg{events: []session.Event{ev}})
				_ = m.View()
			}
		})
	}
}
