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

// BenchmarkStreamTokenDepth is the cost of showing one streamed token
// (Update + View) 1,000 and 10,000 tokens into a reply, below no earlier
// messages and below 1,000: it must grow with neither (compare the
// sub-benchmarks as ratios). The tokens measured are the same in each:
// the 3,000-token workload, after the reply's first depth tokens.
func BenchmarkStreamTokenDepth(b *testing.B) {
	rest := ollamatest.Tokens(ollamatest.Markdown(3000))
	for _, history := range []int{0, 1000} {
		for _, depth := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("history=%d/depth=%d", history, depth), func(b *testing.B) {
				m := benchModel(b, history)
				hd := session.Header{Time: time.Now()}
				turn := history + 1
				var evs []session.Event
				for _, tk := range ollamatest.Tokens(ollamatest.Markdown(depth)) {
					evs = append(evs, &session.AssistantDelta{Header: hd, Turn: turn, Text: tk.Content})
				}
				m.Update(eventsMsg{events: evs})
				_ = m.View()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					ev := &session.AssistantDelta{Header: hd, Turn: turn, Text: rest[i%len(rest)].Content}
					m.Update(eventsMsg{events: []session.Event{ev}})
					_ = m.View()
				}
			})
		}
	}
}
