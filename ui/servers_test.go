package ui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// serverHarness is a UI over a session holding real MCP servers: an
// in-process one, and a stdio one that fails with words on stderr.
func serverHarness(t *testing.T, extra ...session.ServerConfig) (*harness, *mcpserver.MCPServer) {
	t.Helper()
	srv := mcpserver.NewMCPServer("notes", "1.0")
	srv.AddTool(mcp.NewTool("read_note", mcp.WithDescription("Read a note.\x1b]0;pwned\x07"), mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("a note"), nil
		})
	srv.AddTool(mcp.NewTool("delete_note", mcp.WithDescription("Delete a note.")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("deleted"), nil
		})
	cfgs := append([]session.ServerConfig{
		{Name: "notes", Transport: "inprocess", InProcess: srv},
		{Name: "broken", Command: "sh", Args: []string{"-c", "echo 'cannot open database' >&2; exit 4"}},
	}, extra...)
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef", Servers: cfgs})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool {
		c, _, f := m.serverCounts()
		return c == 1 && f == 1
	})
	return h, srv
}

// until feeds events to the model until cond holds.
func (h *harness) until(cond func() bool) {
	h.t.Helper()
	bound := mcptestutil.HangBound(0) // a hang's bound, not a measure
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for !cond() {
		evs, ok := h.sub.Next(ctx)
		if !ok {
			h.t.Fatalf("condition not met within %v\n%s", bound, h.report())
		}
		h.feed(evs...)
	}
}

// command types a slash command, presses Enter and runs what it started.
// command runs a slash command typed on an empty input: a command that
// failed keeps its text in the input, and a person starts afresh.
func (h *harness) command(line string) {
	h.m.input.reset()
	h.typeText(line)
	if cmd := h.key(tea.KeyEnter); cmd != nil {
		h.m.Update(cmd())
	}
}

func TestServersShownLoudlyAndCounted(t *testing.T) {
	h, _ := serverHarness(t)
	v := h.m.View()
	for _, want := range []string{"servers 1/2 ✗1", "⚡ notes connected (2 tools)",
		"MCP server broken failed: the server exited during the handshake (exit status 4)",
		"cannot open database", "/connect broken retries"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
	h.command("/servers")
	h.command("/tools notes")
	v = allText(h.m)
	for _, want := range []string{"SERVER", "notes", "inprocess", "connected (2 tools)", "failed: the server exited",
		"notes__read_note [read-only]", "notes__delete_note [destructive]", "Read a note.␛]0;pwned␇"} {
		if !strings.Contains(v, want) {
			t.Errorf("/servers or /tools lacks %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "\x1b]0;") {
		t.Fatal("a tool description's escape sequence reached the screen")
	}
	h.command("/logs broken")
	if !strings.Contains(allText(h.m), "stderr: cannot open database") {
		t.Errorf("/logs lacks the stderr line:\n%s", allText(h.m))
	}
}

func TestCloseConnectAndCompletion(t *testing.T) {
	h, _ := serverHarness(t)
	h.typeText("/close no")
	h.key(tea.KeyTab)
	if got := h.m.input.value(); got != "/close notes " {
		t.Fatalf("tab completion: %q", got)
	}
	h.m.Update(h.key(tea.KeyEnter)())
	h.until(func() bool { c, _, _ := h.m.serverCounts(); return c == 0 })
	if !strings.Contains(h.m.View(), "notes closed") || !strings.Contains(h.m.View(), "servers 0/2") {
		t.Fatalf("after /close:\n%s", h.m.View())
	}
	h.command("/connect notes")
	h.until(func() bool { c, _, _ := h.m.serverCounts(); return c == 1 })
	h.command("/connect nosuch")
	if !strings.Contains(h.m.View(), `/connect: no server "nosuch" (servers: broken, notes)`) {
		t.Fatalf("unknown server:\n%s", h.m.View())
	}
	h.command("/close")
	if !strings.Contains(h.m.View(), "usage: /close NAME|all") {
		t.Fatalf("missing argument:\n%s", h.m.View())
	}
}

// TestTokenPromptIsMaskedAndNeverShown types a token into /token and checks
// it is never on screen, while the server receives it.
func TestTokenPromptIsMaskedAndNeverShown(t *testing.T) {
	const sentinel = "SENTINEL-ui-0000-token"
	h, _ := serverHarness(t)
	h.command("/token notes")
	if h.m.token == nil {
		t.Fatalf("no token prompt:\n%s", h.m.View())
	}
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(sentinel), Paste: true})
	if v := h.m.View(); strings.Contains(v, sentinel) || !strings.Contains(v, "token for notes: ••••") {
		t.Fatalf("the token prompt is not masked:\n%s", v)
	}
	cmd := h.key(tea.KeyEnter)
	if cmd == nil {
		t.Fatal("enter did not submit the token")
	}
	h.m.Update(cmd())
	h.until(func() bool { c, _, _ := h.m.serverCounts(); return c == 1 })
	h.command("/servers")
	h.command("/logs notes")
	if all := allText(h.m) + h.m.View(); strings.Contains(all, sentinel) {
		t.Fatal("the token reached the screen")
	}
}

// TestCloseAClosedServerSaysSo: /close of a server already closed did
// nothing you could see (no line, no error): it says the server is
// closed, and how to open it.
func TestCloseAClosedServerSaysSo(t *testing.T) {
	h, _ := serverHarness(t)
	h.command("/close notes")
	h.until(func() bool { c, _, _ := h.m.serverCounts(); return c == 0 })
	before := strings.Count(allText(h.m), "notes")
	h.command("/close notes")
	v := allText(h.m)
	if !strings.Contains(v, "notes is closed already (/connect notes opens it)") {
		t.Fatalf("a second /close notes says nothing new (%d mentions of notes before, %d after):\n%s",
			before, strings.Count(v, "notes"), v)
	}
}
