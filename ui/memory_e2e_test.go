package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestMemoryServerThroughTheGate runs the real npm server-memory over stdio
// behind the gate, with the memory file on disk as the witness of which
// writes happened: read_only denies the write, ask + y runs it, ask + n
// does not.
func TestMemoryServerThroughTheGate(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-memory")
	memFile := filepath.Join(t.TempDir(), "memory.jsonl")
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Servers: []session.ServerConfig{{Name: "mem", Command: bin, Env: map[string]string{"MEMORY_FILE_PATH": memFile}}},
		Policy:  permissions.Policy{Mode: permissions.ReadOnly, ServerAllow: map[string][]string{"mem": {"read_graph"}}}})
	sub := sess.Subscribe()
	defer sess.Close()
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 110, Height: 50})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })

	entity := func(name string) ollamatest.Chunk {
		args := api.NewToolCallFunctionArguments()
		args.Set("entities", []any{map[string]any{"name": name, "entityType": "person", "observations": []any{"likes tests"}}})
		return ollamatest.Chunk{ToolCalls: []api.ToolCall{{ID: "call_" + name, Function: api.ToolCallFunction{
			Name: "mem__create_entities", Arguments: args}}}}
	}
	read := ollamatest.Chunk{ToolCalls: []api.ToolCall{{ID: "call_read", Function: api.ToolCallFunction{
		Name: "mem__read_graph", Arguments: api.NewToolCallFunctionArguments()}}}}
	fileHas := func(name string) bool {
		b, _ := os.ReadFile(memFile)
		return strings.Contains(string(b), name)
	}

	// read_only: the read runs, the write is denied and the file is untouched.
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{read, entity("Ada")}},
		ollamatest.TextTurn("I could read the graph but not write to it."),
	)
	h.send("remember Ada")
	v := h.m.View()
	if !strings.Contains(v, "✓ mem__read_graph") || !strings.Contains(v, "⛔ mem__create_entities") {
		t.Fatalf("read_only cards:\n%s", v)
	}
	if fileHas("Ada") {
		t.Fatal("a denied write reached the memory file")
	}

	// ask + y: the modal opens, y runs it, and the file holds the entity.
	h.command("/mode ask")
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{entity("Grace")}}, ollamatest.TextTurn("Saved Grace."))
	h.typeText("remember Grace")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	if v := h.m.View(); !strings.Contains(v, "mem__create_entities") || !strings.Contains(v, `"name": "Grace"`) {
		t.Fatalf("the modal should show the call:\n%s", v)
	}
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'y'}})
	h.untilTurnDone()
	if !fileHas("Grace") {
		t.Fatal("y did not run the write")
	}

	// ask + n: nothing is written.
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{entity("Mallory")}}, ollamatest.TextTurn("I did not save Mallory."))
	h.typeText("remember Mallory")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	h.untilTurnDone()
	if fileHas("Mallory") || fileHas("Ada") {
		t.Fatal("n (or read_only) writes reached the memory file")
	}
	if !strings.Contains(h.m.View(), "I did not save Mallory.") {
		t.Fatalf("the model should go on after a denial:\n%s", h.m.View())
	}
}
