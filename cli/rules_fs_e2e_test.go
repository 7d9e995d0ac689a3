package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// exactBox is on the box of a call on a server with approve_args "exact".
const exactBox = "a/e allow these arguments"

// TestE2EFilesystemRulesAndExactArgs: the real binary in a pty, the npm
// server-filesystem with approve_args "exact", in ask mode, with a rule
// allowing reads in the project and one denying any argument under the
// secret folder. A read in the project runs unasked; a read of the secret
// is refused, also through ".." (the server would serve it); a write is
// asked. `a` in the box allows the write with these arguments: the same
// write again runs without a box; the same tool with other arguments asks
// again (n: not written). The server's writes are counted by the wrapper
// of effects_e2e_test.go.
func TestE2EFilesystemRulesAndExactArgs(t *testing.T) {
	fs := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	r := newRig(t)
	dir, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	witness := filepath.Join(r.root, "witness")
	proj, secret := filepath.Join(dir, "proj"), filepath.Join(dir, "secret")
	for d, file := range map[string]string{proj: "a.txt", secret: "key"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, file), []byte("contents of "+file), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.writeConfig(map[string]any{
		"permissions": map[string]any{"mode": "ask", "rules": []any{
			map[string]any{"tool": "fs__read_text_file", "args": map[string]any{"path": proj + "/**"}, "decision": "allow"},
			map[string]any{"tool": "*", "args": map[string]any{"*": secret + "/**"}, "decision": "deny"},
		}},
		"mcpServers": map[string]any{"fs": map[string]any{
			"command":      "/bin/sh",
			"args":         []string{"-c", fsWrapper},
			"env":          map[string]string{"ROOT": dir, "CALL_LOG": r.callLog, "PID_LOG": r.pidLog, "WITNESS": witness, "FS_BIN": fs},
			"approve_args": "exact",
		}},
	})
	er := &effectRig{crashRig: r, witness: witness}
	write := func(id, name, content string) ollamatest.Turn {
		args := api.NewToolCallFunctionArguments()
		args.Set("path", filepath.Join(dir, name))
		args.Set("content", content)
		return ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: id,
			Function: api.ToolCallFunction{Name: "fs__write_file", Arguments: args}}}}}}
	}
	read := func(id, path string) api.ToolCall {
		args := api.NewToolCallFunctionArguments()
		args.Set("path", path)
		return api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: "fs__read_text_file", Arguments: args}}
	}
	r.fake.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{read("call_in", proj+"/a.txt"),
			read("call_key", secret+"/key"), read("call_up", proj+"/../secret/key")}}}},
		ollamatest.TextTurn("Read what I could."),
		write("call_1", "a.txt", "one\n"), ollamatest.TextTurn("Wrote a."),
		write("call_2", "a.txt", "one\n"), ollamatest.TextTurn("Wrote a again."),
		write("call_3", "b.txt", "one\n"), ollamatest.TextTurn("Did not write b."),
	)
	tm := startLatch(t, r.bin, ptyOptions{Rows: 40, Cols: 160, Host: r.fake.Host(), Env: r.env,
		Args: []string{"--config", r.cfg, "--model", e2eModel}})
	tm.waitScreen(t, 20*time.Second, "fs connected", func(s string) bool {
		return inputRow(s) >= 0 && strings.Contains(statusLine(s), "servers 1/1")
	})

	// A box would hold the turn: the answer shows only if none opened.
	sendPrompt(t, tm, "read them")
	tm.waitScreen(t, 15*time.Second, "the reads done, unasked", func(s string) bool { return strings.Contains(chatText(s), "Read what I could.") })
	told := toolMessages(r.fake)
	if !strings.Contains(told["call_in"], "contents of a.txt") {
		t.Errorf("the read in the project: the model was told %q, want the file", told["call_in"])
	}
	for _, id := range []string{"call_key", "call_up"} {
		if strings.Contains(told[id], "contents of key") || !strings.Contains(told[id], "denied") || !strings.Contains(told[id], "permissions.rules[1]") {
			t.Errorf("the read of the secret (%s): the model was told %q, want it denied by rules[1]", id, told[id])
		}
	}

	sendPrompt(t, tm, "write a")
	takeBoxWith(t, tm, exactBox, "the box of the first write")
	tm.typeKeys("a")
	tm.waitScreen(t, 15*time.Second, "the first write done", func(s string) bool { return strings.Contains(chatText(s), "Wrote a.") })
	if n := er.writesDone(); n != 1 {
		t.Fatalf("the server wrote %d times after a, want 1", n)
	}

	sendPrompt(t, tm, "write a again")
	scr := tm.waitScreen(t, 15*time.Second, "the same write, unasked", func(s string) bool {
		return strings.Contains(chatText(s), "Wrote a again.") || strings.Contains(s, exactBox)
	})
	if !strings.Contains(chatText(scr), "Wrote a again.") {
		t.Fatalf("the same write with the same arguments was asked again:\n%s", dumpScreen(scr))
	}
	if n := er.writesDone(); n != 2 {
		t.Errorf("the server wrote %d times after the same write, want 2", n)
	}

	sendPrompt(t, tm, "write b")
	takeBoxWith(t, tm, exactBox, "the box of a write with other arguments")
	tm.typeKeys("n")
	tm.waitScreen(t, 15*time.Second, "the answer after n", func(s string) bool { return strings.Contains(chatText(s), "Did not write b.") })
	if n := er.writesDone(); n != 2 {
		t.Errorf("the server wrote %d times after n, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt exists after n (stat: %v)", err)
	}
	quitAndCheck(t, tm)
}

// toolMessages are the tool messages of the model's last request, by
// call id.
func toolMessages(fake *ollamatest.Server) map[string]string {
	out := map[string]string{}
	reqs := fake.Requests()
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			out[m.ToolCallID] = m.Content
		}
	}
	return out
}
