package ui

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// A tool whose server gives no hints is destructive only by the MCP
// spec's default: the box says the server does not say (not, as a
// fact, that it changes or deletes data), and so do its card and
// /tools; a tool the server calls destructive keeps those words.
func TestGoldenToolWithoutHintsIsNotCalledDestructive(t *testing.T) {
	bare := mcpserver.NewMCPServer("bare", "1.0")
	bare.AddTool(mcp.Tool{Name: "erase", InputSchema: mcp.ToolInputSchema{Type: "object"}}, // no annotations
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("done"), nil
		})
	h, _ := toolHarnessWith(t, session.Options{ID: "20261129-120000-abcdef", Policy: permissions.Policy{Mode: permissions.Ask},
		Servers: []session.ServerConfig{{Name: "bare", Transport: "inprocess", InProcess: bare}}})
	h.until(func() bool { c, _, _ := h.m.serverCounts(); return c >= 2 })
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_b1", "bare__erase")}},
		ollamatest.TextTurn("Done."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_w1", "notes__write_note", "text", "x")}},
		ollamatest.TextTurn("Written."),
	)
	h.typeText("erase it")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	v := h.m.View()
	if !strings.Contains(v, "hints   none: may change data (the server does not say)") ||
		strings.Contains(v, "destructive: it may change or delete data") {
		t.Fatalf("the box of a tool with no hints:\n%s", v)
	}
	golden.RequireEqual(t, []byte(h.m.modal.render(h.m, 100, 40))) // the box alone: the servers connect in either order
	h.typeText("y")
	h.untilTurnDone()
	if v := h.m.View(); !strings.Contains(v, "bare__erase · may change data") || strings.Contains(v, "bare__erase · destructive") {
		t.Errorf("the card of a tool with no hints:\n%s", v)
	}
	h.typeText("write it")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	if v := h.m.View(); !strings.Contains(v, "hints   destructive: it may change or delete data") {
		t.Errorf("the box of a tool its server calls destructive:\n%s", v)
	}
	h.typeText("n")
	h.untilTurnDone()
	h.command("/tools")
	if text := allText(h.m); !strings.Contains(text, "bare__erase [may change data]") || !strings.Contains(text, "notes__write_note [destructive]") {
		t.Errorf("/tools:\n%s", text)
	}
}
