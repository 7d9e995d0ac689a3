package ui

import (
	"os"
	"path/filepath"
	"strconv"
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

// TestFilesystemRulesThroughTheGate runs the real npm server-filesystem
// over stdio, serving a folder that holds a project and a secret, behind
// argument rules in read_only: a read in the project runs without asking,
// a read of the secret is refused (also through ".."), though the server
// would serve both, and a write is asked about.
func TestFilesystemRulesThroughTheGate(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	proj, secret := filepath.Join(root, "proj"), filepath.Join(root, "secret")
	for dir, file := range map[string]string{proj: "a.txt", secret: "key"} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte("contents of "+file), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rule := func(server, tool string, args map[string]any, decision string, i int) permissions.Rule {
		r, err := permissions.CompileRule(permissions.RuleSpec{Tool: tool, Args: args, Decision: decision}, server,
			"config c.json: permissions.rules["+strconv.Itoa(i)+"]", "")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Servers: []session.ServerConfig{{Name: "fs", Command: bin, Args: []string{root}}},
		Policy: permissions.Policy{Mode: permissions.ReadOnly, Servers: []string{"fs"}, Rules: []permissions.Rule{
			rule("", "fs__read_text_file", map[string]any{"path": proj + "/**"}, "allow", 0),
			rule("", "*", map[string]any{"*": secret + "/**"}, "deny", 1),
			rule("fs", "write_file", nil, "ask", 2),
		}}})
	sub := sess.Subscribe()
	defer sess.Close()
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 140, Height: 60})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })

	call := func(id, tool string, kv ...string) ollamatest.Chunk {
		args := api.NewToolCallFunctionArguments()
		for i := 0; i+1 < len(kv); i += 2 {
			args.Set(kv[i], kv[i+1])
		}
		return ollamatest.Chunk{ToolCalls: []api.ToolCall{{ID: id, Function: api.ToolCallFunction{Name: "fs__" + tool, Arguments: args}}}}
	}
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{call("call_in", "read_text_file", "path", proj+"/a.txt"),
			call("call_key", "read_text_file", "path", secret+"/key"),
			call("call_up", "read_text_file", "path", proj+"/../secret/key")}},
		ollamatest.TextTurn("read what I could"),
	)
	h.send("read them")
	v := h.m.View()
	if !strings.Contains(v, "✓ fs__read_text_file") || !strings.Contains(v, "permissions.rules[0]") {
		t.Errorf("the read in the project should run, naming its rule:\n%s", v)
	}
	if strings.Count(v, "⛔ fs__read_text_file") != 2 || !strings.Contains(v, "denied by rule") {
		t.Errorf("both reads of the secret should be denied by the rule:\n%s", v)
	}
	if got := h.srv.Requests(); len(got) < 2 || strings.Contains(lastToolContents(got[len(got)-1]), "contents of key") {
		t.Errorf("the secret reached the model")
	}

	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{call("call_w", "write_file", "path", proj+"/new.txt", "content", "hi")}},
		ollamatest.TextTurn("not written"))
	h.typeText("write it")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'n'}})
	h.untilTurnDone()
	if _, err := os.Stat(filepath.Join(proj, "new.txt")); err == nil {
		t.Error("n in the box still wrote the file")
	}

	// Rules typed in the chat: /allow lets the listing of the project
	// run in read_only, /deny refuses a read the config's rule allows.
	h.command("/allow fs__list_directory(path=" + proj + ")")
	h.command("/deny fs__read_text_file(path=" + proj + "/a.txt)")
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{call("call_ls", "list_directory", "path", proj),
		call("call_a", "read_text_file", "path", proj+"/a.txt")}}, ollamatest.TextTurn("listed"))
	h.send("list and read")
	if c := h.m.cardFor("call_ls").card; c.state != cardDone || !strings.HasPrefix(c.rule, `/allow "fs__list_directory(path=`) {
		t.Errorf("/allow should let the listing run, naming its rule: state %v, rule %q\n%s", c.state, c.rule, h.m.View())
	}
	if c := h.m.cardFor("call_a").card; c.state != cardDenied || !strings.HasPrefix(c.rule, `/deny "fs__read_text_file(path=`) {
		t.Errorf("/deny should refuse the read the config allows, naming its rule: state %v, rule %q\n%s", c.state, c.rule, h.m.View())
	}
}

// lastToolContents joins the tool messages of a request.
func lastToolContents(req api.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role == "tool" {
			b.WriteString(m.Content + "\n")
		}
	}
	return b.String()
}
