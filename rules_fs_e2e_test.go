package main

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

// TestE2EApproveArgsExactWithFilesystem: the real binary in a pty, the npm
// server-filesystem with approve_args "exact", in ask mode. `a` in the box
// allows the write with these arguments: the same write again runs without
// a box; the same tool with other arguments asks again (n: not written).
// The server's writes are counted by the wrapper of effects_e2e_test.go.
func TestE2EApproveArgsExactWithFilesystem(t *testing.T) {
	fs := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	r := newRig(t)
	dir, err := filepath.EvalSymlinks(r.dir)
	if err != nil {
		t.Fatal(err)
	}
	witness := filepath.Join(r.root, "witness")
	r.writeConfig(map[string]any{
		"permissions": map[string]any{"mode": "ask"},
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
	r.fake.Script(
		write("call_1", "a.txt", "one\n"), ollamatest.TextTurn("Wrote a."),
		write("call_2", "a.txt", "one\n"), ollamatest.TextTurn("Wrote a again."),
		write("call_3", "b.txt", "one\n"), ollamatest.TextTurn("Did not write b."),
	)
	tm := startLatch(t, r.bin, ptyOptions{Rows: 40, Cols: 160, Host: r.fake.Host(), Env: r.env,
		Args: []string{"--config", r.cfg, "--model", e2eModel}})
	tm.waitScreen(t, 20*time.Second, "fs connected", func(s string) bool {
		return inputRow(s) >= 0 && strings.Contains(statusLine(s), "servers 1/1")
	})

	sendPrompt(t, tm, "write a")
	takeAskBox(t, tm, "the box of the first write")
	tm.typeKeys("a")
	tm.waitScreen(t, 15*time.Second, "the first write done", func(s string) bool { return strings.Contains(chatText(s), "Wrote a.") })
	if n := er.writesDone(); n != 1 {
		t.Fatalf("the server wrote %d times after a, want 1", n)
	}

	sendPrompt(t, tm, "write a again")
	scr := tm.waitScreen(t, 15*time.Second, "the same write, unasked", func(s string) bool {
		return strings.Contains(chatText(s), "Wrote a again.") || strings.Contains(s, "a/e allow these arguments")
	})
	if !strings.Contains(chatText(scr), "Wrote a again.") {
		t.Fatalf("the same write with the same arguments was asked again:\n%s", dumpScreen(scr))
	}
	if n := er.writesDone(); n != 2 {
		t.Errorf("the server wrote %d times after the same write, want 2", n)
	}

	sendPrompt(t, tm, "write b")
	takeAskBox(t, tm, "the box of a write with other arguments")
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

// takeAskBox waits for the box of an asked call on a server with
// approve_args "exact", takes it with Tab after a pause if it waits (keys
// typed just before count as typing), and waits until it answers keys.
func takeAskBox(t *testing.T, tm *ptyTerm, what string) {
	t.Helper()
	const box = "a/e allow these arguments"
	scr := tm.waitScreen(t, 15*time.Second, what, func(s string) bool { return strings.Contains(unwrapped(s), box) })
	if strings.Contains(unwrapped(scr), "tab to answer") {
		time.Sleep(1200 * time.Millisecond) // a pause in typing (ui's typingPause), not a measure
		tm.sendKey("\t")
	}
	tm.waitScreen(t, 10*time.Second, what+" answering keys", func(s string) bool {
		u := unwrapped(s)
		return strings.Contains(u, box) && !strings.Contains(u, "keys ignored") && !strings.Contains(u, "tab to answer")
	})
}
