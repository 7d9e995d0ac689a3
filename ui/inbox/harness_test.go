package inbox

import (
	"context"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/muesli/termenv"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/ui"
)

// wait bounds what a test waits for (on 2 busy cores).
const wait = 30 * time.Second

func init() { lipgloss.SetColorProfile(termenv.Ascii) }

// gateway is a real session in approve mode, as latch serve runs it: its
// calls park in its log in a state folder, and it applies the decisions
// dropped in its inbox (WatchInbox). Its notes server counts each write
// it runs; a write of "fail: why" gives an error result, why its text.
type gateway struct {
	t    testing.TB
	dir  string
	sess *session.Session
	mu   sync.Mutex
	runs map[string]int // writes run, by text
}

// newGateway starts a gateway on a state folder (a new one when dir is "").
func newGateway(t testing.TB, dir string) *gateway {
	t.Helper()
	return startGateway(t, dir, true)
}

// startGateway starts a gateway on a state folder; with watch false it
// takes no decision from its inbox (a gateway about to stop).
func startGateway(t testing.TB, dir string, watch bool) *gateway {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	g := &gateway{t: t, dir: dir, runs: map[string]int{}}
	srv := mcpserver.NewMCPServer("notes", "1.0", mcpserver.WithToolCapabilities(true))
	srv.AddTool(mcpgo.NewTool("write_note", mcpgo.WithDescription("Write a note."), mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			g.mu.Lock()
			text := req.GetString("text", "")
			g.runs[text]++
			g.mu.Unlock()
			if why, ok := strings.CutPrefix(text, "fail: "); ok {
				return mcpgo.NewToolResultError(why), nil
			}
			return mcpgo.NewToolResultText("saved"), nil
		})
	ol := ollamatest.New(ollamatest.Model{Name: "tiny", Size: 1_000_000, ParameterSize: "10M", QuantizationLevel: "F16"})
	t.Cleanup(ol.Close)
	u, _ := url.Parse(ol.URL)
	g.sess = session.New(session.Options{Model: "tiny", Client: ol.Client(), Host: ol.Host(), Raw: session.RawOllama{URL: u, HTTP: ol.HTTPClient()},
		LogDir: dir, NonInteractive: true, Policy: permissions.Policy{Mode: permissions.Approve},
		Servers: []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(g.sess.Close)
	g.sess.StartServers()
	mcptestutil.WaitFor(t, wait, "the notes server's tools", func() bool {
		tools, err := g.sess.Tools("")
		return err == nil && len(tools) > 0
	})
	if !watch {
		return g
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.sess.WatchInbox(ctx, 20*time.Millisecond, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	return g
}

// park has client call write_note with text; it parks, and its
// invocation id is returned.
func (g *gateway) park(client, text string) string {
	g.t.Helper()
	out := g.sess.GatewayCall(context.Background(), session.GatewayCall{Client: client, Name: "notes__write_note",
		Arguments: map[string]any{"text": text}})
	if out.Decision != session.GatewayParked {
		g.t.Fatalf("the call did not park: %+v", out)
	}
	return out.ID
}

// ran is how many times the write of text ran.
func (g *gateway) ran(text string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[text]
}

// waitRan waits until the write of text has run n times (an approved
// call runs once its decision is logged).
func (g *gateway) waitRan(text string, n int) {
	g.t.Helper()
	mcptestutil.WaitFor(g.t, wait, "the approved calls run", func() bool { return g.ran(text) >= n })
}

// screen is an inbox model driven as Bubble Tea would drive it, on a test
// clock, with what it rang kept.
type screen struct {
	t       testing.TB
	m       *Model
	now     time.Time
	rung    []string
	pending tea.Cmd // a read the model asked for and the test has not run
}

// newScreen is the inbox of dir, by, w×h, its first read in.
func newScreen(t *testing.T, dir, by string, w, h int) *screen {
	s := unreadScreen(t, dir, by, w, h)
	s.read()
	return s
}

// unreadScreen is newScreen before its first read.
func unreadScreen(t *testing.T, dir, by string, w, h int) *screen {
	s := &screen{t: t, now: time.Now()}
	o := Options{Dir: dir, By: by, Now: func() time.Time { return s.now }, Ring: func(seq string) { s.rung = append(s.rung, seq) },
		Args: func(p session.ParkedCall, full bool) ([]string, int) {
			return ui.ArgLines(p.Arguments, ui.ArgView{Full: full})
		},
		Line: func(p session.ParkedCall) string { return ui.ArgLine(p.Arguments, ui.ArgView{}) }}
	s.m = New(o)
	s.m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return s
}

// read runs one read of the waiting calls, as the poll does (or the read
// a decision asked for, when the model is waiting for it).
func (s *screen) read() {
	s.t.Helper()
	cmd := s.pending
	s.pending = nil
	if cmd == nil {
		cmd = s.m.load()
	}
	if cmd == nil {
		s.t.Fatal("the model says a read is under way, but none was asked for")
	}
	_, next := s.m.Update(cmd())
	if s.m.reading { // it asked for the next read at once
		s.pending = next
	}
}

// readUntil reads until the view holds what cond wants.
func (s *screen) readUntil(what string, cond func(string) bool) string {
	s.t.Helper()
	var v string
	mcptestutil.WaitFor(s.t, wait, what, func() bool {
		s.read()
		v = s.m.View()
		return cond(v)
	})
	return v
}

// press types keys, each after d on the clock; what a key starts (a
// decision) runs to its end, unless it is a tick.
func (s *screen) press(d time.Duration, keys ...tea.KeyMsg) {
	for _, k := range keys {
		s.now = s.now.Add(d)
		_, cmd := s.m.Update(k)
		s.run(cmd)
	}
}

// run runs what a decision started and gives the model its result.
func (s *screen) run(cmd tea.Cmd) {
	if cmd == nil || s.m.step != nil || s.m.busy == 0 {
		return // a tick, a quit, or nothing: Bubble Tea's to run
	}
	if _, next := s.m.Update(cmd()); s.m.reading && next != nil {
		s.pending = next // the read the decision asked for
	}
}

// runes is a key of text.
func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

var (
	enter = tea.KeyMsg{Type: tea.KeyEnter}
	space = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
)

// containsAll fails the test unless v holds every one of subs.
func containsAll(t *testing.T, v string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(v, s) {
			t.Errorf("the screen lacks %q:\n%s", s, v)
		}
	}
}

// windowSize is the terminal's size message.
func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

// displayWidth is how many cells s takes.
func displayWidth(s string) int { return lipgloss.Width(s) }
