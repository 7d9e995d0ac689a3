package ui

import (
	"context"
	"fmt"
	"latch/mcp/mcptestutil"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/muesli/termenv"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// A long chat must cost no more per frame than a short one: the chat pane
// lays out only what is on screen, and each entry's layout is cached.

// longChatReply is an assistant reply of some length: a heading, prose, a
// list, code and a table.
func longChatReply(i int) string {
	return fmt.Sprintf("## Answer %d\n\n", i) + ollamatest.Markdown(300)
}

// longChatEvents are n finished messages, alternately the user's and the
// assistant's (markdown), as the session publishes them.
func longChatEvents(n int) []session.Event {
	hd := session.Header{}
	var evs []session.Event
	for turn := 1; turn <= n/2; turn++ {
		evs = append(evs,
			&session.UserMessage{Header: hd, Turn: turn, Text: fmt.Sprintf("question %d: tell me more about part %d", turn, turn)},
			&session.AssistantMessage{Header: hd, Turn: turn, Content: longChatReply(turn)},
			&session.TurnDone{Header: hd, Turn: turn, Reason: session.ReasonStop},
		)
	}
	return evs
}

// longChatModel is a 120×40 UI over an idle session holding evs.
func longChatModel(tb testing.TB, evs []session.Event) *Model {
	tb.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	tb.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef"})
	tb.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(eventsMsg{events: evs})
	m.View()
	return m
}

func keyOf(k tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: k} }

// BenchmarkFrame is one frame while reading history: the view scrolls one
// line (up, then down, alternately) and is drawn. messages=2000 must cost
// about what messages=10 costs.
func BenchmarkFrame(b *testing.B) {
	for _, n := range []int{10, 2000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			m := longChatModel(b, longChatEvents(n))
			m.Update(keyOf(tea.KeyPgUp)) // into the history, a page up
			m.View()
			if !m.chat.scrolledUp() {
				b.Fatalf("PgUp did not scroll:\n%s", m.View())
			}
			keys := [2]tea.KeyMsg{keyOf(tea.KeyShiftUp), keyOf(tea.KeyShiftDown)}
			var frames [2]string
			for i := range 4 { // warm: both positions laid out
				m.Update(keys[i%2])
				frames[i%2] = m.View()
			}
			if chatBody(frames[0]) == chatBody(frames[1]) {
				b.Fatalf("shift+up and shift+down drew the same chat:\n%s", frames[0])
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				m.Update(keys[i%2])
				if m.View() == "" {
					b.Fatal("empty frame")
				}
			}
		})
	}
}

// BenchmarkScroll2000 pages up through a 2,000-message chat, one frame
// (PgUp + View) per op, and starts again at the bottom once at the top. The
// first pass lays every entry out; after that layouts come from the cache.
func BenchmarkScroll2000(b *testing.B) {
	m := longChatModel(b, longChatEvents(2000))
	atTop := func() bool { return m.chat.scrolledUp() && m.chat.topE == 0 && m.chat.topLine == 0 }
	pages, passes := 0, 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if atTop() {
			m.Update(tea.KeyMsg{Type: tea.KeyCtrlEnd})
			passes++
		}
		m.Update(keyOf(tea.KeyPgUp))
		if m.View() == "" {
			b.Fatal("empty frame")
		}
		pages++
	}
	b.StopTimer()
	if passes > 0 {
		b.ReportMetric(float64(pages)/float64(passes), "pages/pass")
	}
}

// TestFrameWorkDoesNotGrowWithHistory checks what BenchmarkFrame measures
// without a clock: the allocations of a frame (scroll a line, draw) with
// 2,000 messages are those of a frame with 10.
func TestFrameWorkDoesNotGrowWithHistory(t *testing.T) {
	allocs := map[int]float64{}
	for _, n := range []int{10, 2000} {
		m := longChatModel(t, longChatEvents(n))
		m.Update(keyOf(tea.KeyPgUp))
		m.View()
		i := 0
		keys := [2]tea.KeyMsg{keyOf(tea.KeyShiftUp), keyOf(tea.KeyShiftDown)}
		allocs[n] = testing.AllocsPerRun(50, func() {
			m.Update(keys[i%2])
			m.View()
			i++
		})
	}
	t.Logf("allocations per frame: %v", allocs)
	if allocs[2000] > allocs[10]*1.5+10 {
		t.Fatalf("a frame with 2000 messages allocates %.0f times, with 10 %.0f: the frame's work grows with the chat", allocs[2000], allocs[10])
	}
}

// bigResultEvents runs one real tool call whose result is 1 MiB through a
// session and returns the events the session published for it. The session
// passes the whole result to the model, but its tool_result event carries
// only a short preview: that is all the UI ever holds.
func bigResultEvents(t *testing.T) []session.Event {
	t.Helper()
	const size = 1 << 20
	big := strings.Repeat(strings.Repeat("x", 63)+"\n", size/64)
	srv := mcpserver.NewMCPServer("big", "1.0")
	srv.AddTool(mcp.NewTool("dump", mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(big), nil
		})
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Servers: []session.ServerConfig{{Name: "big", Transport: "inprocess", InProcess: srv}},
		Policy:  permissions.Policy{Mode: permissions.ReadOnly, ServerAllow: map[string][]string{"big": {"dump"}}}})
	defer sess.Close()
	sub := sess.Subscribe()
	sess.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sess.WaitServers(ctx)
	ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_big", "big__dump")}}, ollamatest.TextTurn("It is big."))
	if err := sess.Send("dump it"); err != nil {
		t.Fatal(err)
	}
	var out []session.Event
	for {
		evs, ok := sub.Next(ctx)
		if !ok {
			t.Fatal("no turn_done within 20s")
		}
		for _, e := range evs {
			switch e := e.(type) {
			case *session.ToolCallEvent, *session.PermissionEvent:
				out = append(out, e)
			case *session.ToolResultEvent:
				if e.Size != size || e.Error != "" {
					t.Fatalf("tool_result: size %d, error %q", e.Size, e.Error)
				}
				if len(e.Preview) > 4<<10 {
					t.Fatalf("the session's tool_result carries %d bytes of preview for a %d-byte result", len(e.Preview), e.Size)
				}
				out = append(out, e)
			case *session.TurnDone:
				return out
			}
		}
	}
}

// heapLongChatSize is the chat TestHeapLongChat builds: its turns (every
// fifth calls the tool) and the layout budget. Under the race detector,
// where glamour's colour output is ten times slower, the chat is a fifth
// as long and the budget a fifth as large: still in colour, and still
// several times what the budget holds, so the cache has to drop layouts.
func heapLongChatSize() (turns, budget int) {
	if mcptestutil.RaceEnabled {
		return 200, layoutBudget / 5
	}
	return 1000, layoutBudget
}

// TestHeapLongChat loads a 2,000-message chat in which 200 tool calls each
// returned 1 MiB (under -race a fifth of that), lays every entry out
// (pages up to the very top) in colour, and checks the heap: the UI keeps
// previews, never whole results, and the cached layouts stay within their
// budget, which the chat overruns.
func TestHeapLongChat(t *testing.T) {
	if testing.Short() {
		t.Skip("lays out 2,000 messages")
	}
	// In colour, as a terminal shows it: styled lines are several times
	// the size of plain ones. The profile is global to the package's
	// tests; it is put back.
	const profile = termenv.TrueColor
	lipgloss.SetColorProfile(profile)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	turns, budget := heapLongChatSize()
	tmpl := bigResultEvents(t)
	hd := session.Header{}
	var evs []session.Event
	calls := 0
	for turn := 1; turn <= turns; turn++ {
		evs = append(evs, &session.UserMessage{Header: hd, Turn: turn, Text: fmt.Sprintf("question %d", turn)})
		if turn%5 == 0 { // a fifth of the turns call the tool
			id := fmt.Sprintf("call_%d", turn)
			for _, e := range tmpl {
				switch e := e.(type) {
				case *session.ToolCallEvent:
					c := *e
					c.Turn, c.CallID = turn, id
					evs = append(evs, &c)
				case *session.PermissionEvent:
					c := *e
					c.Turn, c.CallID = turn, id
					evs = append(evs, &c)
				case *session.ToolResultEvent:
					c := *e
					c.Turn, c.CallID, c.Preview = turn, id, strings.Clone(e.Preview) // each its own
					evs = append(evs, &c)
				}
			}
			calls++
		}
		evs = append(evs,
			&session.AssistantMessage{Header: hd, Turn: turn, Content: longChatReply(turn)},
			&session.TurnDone{Header: hd, Turn: turn, Reason: session.ReasonStop})
	}
	clear(tmpl) // let the collector have what only the test held

	base := heapInuse()
	m := longChatModel(t, evs)
	m.chat.cache.budget = budget
	clear(evs)
	if n := len(m.chat.entries); n != 2*turns+calls {
		t.Fatalf("%d entries, want %d", n, 2*turns+calls)
	}
	// Page up to the top, so that every entry is laid out and cached.
	pages := 0
	for !(m.chat.scrolledUp() && m.chat.topE == 0 && m.chat.topLine == 0) {
		m.Update(keyOf(tea.KeyPgUp))
		m.View()
		if pages++; pages > 100000 {
			t.Fatal("PgUp never reached the top")
		}
	}
	v := m.View()
	if !strings.Contains(v, "question 1") {
		t.Fatalf("the top of the chat:\n%s", v)
	}
	if !strings.Contains(v, "\x1b[38;2;") {
		t.Fatalf("the chat is not drawn in true colour:\n%q", v)
	}
	cached, dropped := 0, 0
	for _, en := range m.chat.entries {
		if en.lines == nil {
			dropped++
		}
		for _, l := range en.lines {
			cached += len(l) + 16
		}
	}
	if cached > budget {
		t.Errorf("%d bytes of layout cached, over the budget of %d", cached, budget)
	}
	if dropped == 0 {
		t.Errorf("every layout is still cached (%d bytes, budget %d): the chat never overran the budget", cached, budget)
	}
	inuse := heapInuse()
	runtime.KeepAlive(m)
	const mib = 1 << 20
	t.Logf("%d messages + %d tool results of 1 MiB, all laid out in %s (%d pages; %d layouts dropped, %.1f of %.1f MiB cached): HeapInuse %.1f MiB (%.1f MiB more than before the UI was built)",
		2*turns, calls, profileName(profile), pages, dropped, float64(cached)/mib, float64(budget)/mib,
		float64(inuse)/mib, float64(inuse-min(base, inuse))/mib)
	if limit := uint64(200 * mib); inuse > limit {
		t.Fatalf("HeapInuse is %.0f MiB, over %d MiB: is something keeping whole tool results?", float64(inuse)/mib, limit/mib)
	}
}

// heapInuse collects garbage and returns the heap in use.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

func profileName(p termenv.Profile) string {
	return map[termenv.Profile]string{termenv.TrueColor: "true colour", termenv.ANSI256: "256 colours",
		termenv.ANSI: "16 colours", termenv.Ascii: "no colour"}[p]
}
