package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"latch/session/ollamatest"
)

// TestProjectServersOffUntilEnabled: a Claude Code .mcp.json in the
// folder latch starts in adds its server, off: the notice names it and
// `latch project enable`, `latch policy list` says which files were read,
// and the server gets no request. After `latch project enable` it is
// connected at start and its tool runs; once the file changes, it is off
// again.
func TestProjectServersOffUntilEnabled(t *testing.T) {
	t.Parallel()
	srv := newTokenServer(t)
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "auto"}}, false)
	project := map[string]any{"mcpServers": map[string]any{"crm": map[string]any{"type": "http", "url": srv.URL + "/mcp"}}}
	b, _ := json.MarshalIndent(project, "", "  ")
	mcpFile := filepath.Join(r.cwd, ".mcp.json")
	if err := os.WriteFile(mcpFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	call := ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		{ID: "call_who", Function: api.ToolCallFunction{Name: "crm__whoami", Arguments: api.NewToolCallFunctionArguments()}},
	}}}}
	r.fake.Script(call) // not offered the tool, the model's call is text: the turn ends
	off := r.run("", "--model", e2eModel, "-p", "who am I?")
	if !strings.Contains(off.stderr, `adds "crm", off until you enable them: run `+"`latch project enable`") {
		t.Errorf("no notice naming the server and how to enable it:\n%s", off.stderr)
	}
	if srv.sawAuth("") {
		t.Fatal("a server of a project file not enabled got a request")
	}
	policy := r.run("", "policy", "list")
	for _, want := range []string{"read from:\n  config " + r.cfg, "project " + mcpFile + ": servers \"crm\" off until `latch project enable`"} {
		if !strings.Contains(policy.stdout, want) {
			t.Errorf("policy list lacks %q:\n%s", want, policy.stdout)
		}
	}

	if en := r.run("", "project", "enable"); en.code != exitOK || !strings.Contains(en.stdout, mcpFile+": servers crm on from the next start") {
		t.Fatalf("latch project enable: exit %d\n%s%s", en.code, en.stdout, en.stderr)
	}
	r.fake.Script(call, ollamatest.TextTurn("Done."))
	on := r.run("", "--model", e2eModel, "-p", "who am I?")
	if on.code != exitOK || strings.Contains(on.stderr, "off until") {
		t.Errorf("enabled: exit %d\n%s", on.code, on.stderr)
	}
	if who := toolMessage(t, r.lastRequest(), "call_who"); who.Content != "you sent " {
		t.Errorf("the enabled server's tool gave %q", who.Content)
	}

	if err := os.WriteFile(mcpFile, append(b, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	again := r.run("", "project")
	if !strings.Contains(again.stdout, `servers "crm" off until`) {
		t.Errorf("a changed file is not off again:\n%s", again.stdout)
	}
}
