package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// quickStart is the README's quick start: the shell block under its
// "## Quick start" heading, as written.
func quickStart(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(mcptestutil.ModuleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## Quick start\n")
	if !ok {
		t.Fatal(`README.md has no "## Quick start" section`)
	}
	_, rest, ok = strings.Cut(rest, "```sh\n")
	block, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("the quick start has no ```sh block")
	}
	return block
}

// TestReadmeQuickStart runs the README's quick start as written, from
// this clone, in a terminal, with a clean HOME: `make install` puts latch
// in ~/go/bin, the config goes to ~/.config/latch, `latch -p` answers
// (reading the memory server, which is allowed) and `latch` opens the
// chat with the server connected. The fake Ollama stands in for the
// server, a stand-in `ollama` for its `pull`, and `npx` runs the pinned
// memory server of testdata/npm instead of downloading it.
func TestReadmeQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs latch")
	}
	memory := mcptestutil.NPMBin(t, "mcp-server-memory")
	repo := mcptestutil.ModuleRoot(t)
	fake := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	args := api.NewToolCallFunctionArguments()
	fake.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_rg",
			Function: api.ToolCallFunction{Name: "memory__read_graph", Arguments: args}}}}}},
		ollamatest.TextTurn("I remember nothing about you yet."))

	shims := t.TempDir()
	shim := func(name, body string) {
		if err := os.WriteFile(filepath.Join(shims, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	shim("ollama", `echo "pulling $2 (the test's stand-in for ollama)"`)
	shim("npx", `[ "$1" = "-y" ] && shift
[ "$1" = "@modelcontextprotocol/server-memory" ] || { echo "npx: only server-memory here, not $1" >&2; exit 1; }
shift
exec `+memory+` "$@"`)
	script := filepath.Join(shims, "quickstart.sh")
	// From the clone, with the PATH of a person who added ~/go/bin to it
	// (and the stand-ins first).
	setup := "set -e\ncd " + repo + "\nexport PATH=\"" + shims + ":$HOME/go/bin:$PATH\"\n"
	if err := os.WriteFile(script, []byte(setup+quickStart(t)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	goEnv := func(k string) string {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(out))
	}
	// cleanEnv's HOME, with no config of the test's: the quick start's
	// ~/.config/latch/config.json is the one read. Go's caches stay the
	// machine's, so make install builds without downloading.
	env := []string{"LATCH_CONFIG=", "XDG_CONFIG_HOME=", "GOBIN=", "GOFLAGS=", "GOTOOLCHAIN=local",
		"GOCACHE=" + goEnv("GOCACHE"), "GOMODCACHE=" + goEnv("GOMODCACHE")}
	tm := startLatch(t, "/bin/bash", ptyOptions{Rows: 30, Cols: 100, Host: fake.URL, Args: []string{script}, Env: env})
	home := ""
	for _, kv := range tm.cmd.Env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	tm.waitScreen(t, 3*time.Minute, "the chat, with the memory server connected", func(s string) bool {
		return strings.Contains(screenRows(s)[0], "servers 1/1") && inputRow(s) >= 0
	})
	if _, err := os.Stat(filepath.Join(home, "go", "bin", "latch")); err != nil {
		t.Errorf("make install did not put latch in ~/go/bin: %v", err)
	}
	reqs := fake.Requests()
	if len(reqs) < 2 || !hasUserMessage(fake, "What do you remember about me?") {
		t.Fatalf("latch -p did not ask the model: %d requests", len(reqs))
	}
	ran := false
	for _, m := range reqs[len(reqs)-1].Messages {
		ran = ran || (m.Role == "tool" && strings.Contains(m.Content, "entities"))
	}
	if !ran {
		t.Errorf("the model did not get the memory server's graph: %+v", reqs[len(reqs)-1].Messages)
	}
	sendPrompt(t, tm, "/quit")
	if st := tm.waitExit(mcptestutil.HangBound(15 * time.Second)); st == nil || !st.Success() {
		t.Fatalf("the quick start did not end well: %v\n%s", st, dumpScreen(tm.screen()))
	}
	if out := string(tm.rawOutput()); !strings.Contains(out, "I remember nothing about you yet.") {
		t.Errorf("latch -p printed no answer:\n%s", tail([]byte(out), 2000))
	}
}
