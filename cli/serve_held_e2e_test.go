package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// latch serve --listen with its token in $LATCH_SERVE_TOKEN (and a copy
// in another variable), and an upstream stdio server that inherits the
// whole environment (env_inherit: true): the token is nowhere in the
// server's environment. The server knows the token anyway (here: from its
// own arguments) and plants it in a result and in a JSON-RPC error: the
// gateway's client and the session log see "[redacted]".
func TestServeTokenHeldFromUpstream(t *testing.T) {
	t.Parallel()
	const token = "gw-token-held-7c2e9a51"
	fake := mcptestutil.BuildFakeMCP(t)
	environ := filepath.Join(t.TempDir(), "environ")
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"command": fake, "args": []string{"-environ-file", environ, "-fail-with", "upstream knows " + token},
			"env_inherit": true, "allow": []string{"echo", "rpc_fail"}},
	}}, false, "LATCH_TEST_GW_COPY=Bearer "+token, "LATCH_TEST_PLAIN=plain")
	srv := startServeHTTP(t, r, token) // listens once the servers connected

	b, err := os.ReadFile(environ)
	if err != nil {
		t.Fatalf("the upstream server did not write its environment: %v", err)
	}
	env := string(b)
	if strings.Contains(env, token) || strings.Contains(env, "LATCH_SERVE_TOKEN=") {
		t.Errorf("the upstream server was given the gateway's token:\n%s", env)
	}
	if !strings.Contains(env, "LATCH_TEST_PLAIN=plain\n") {
		t.Errorf("env_inherit: true passed on not even the other variables:\n%s", env)
	}

	res := sdkClient(t, r, map[string]any{"http": map[string]any{"url": srv.url, "token": token}, "calls": []any{
		map[string]any{"name": "fake__echo", "arguments": map[string]any{"message": "echo " + token}},
		map[string]any{"name": "fake__rpc_fail"}}})
	if text, isErr := callText(t, res, 0); isErr || text != "echo [redacted]" {
		t.Errorf("the echoed token reached the client as %q (error %v), want %q", text, isErr, "echo [redacted]")
	}
	wire, _ := json.Marshal(res)
	if strings.Contains(string(wire), token) || !strings.Contains(string(wire), "upstream knows [redacted]") {
		t.Errorf("the upstream error, as the client got it: %s", wire)
	}

	logs, _ := filepath.Glob(filepath.Join(r.state, "*.jsonl"))
	if len(logs) == 0 {
		t.Fatal("no session log")
	}
	for _, p := range logs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), token) || !strings.Contains(string(b), "[redacted]") {
			t.Errorf("the session log %s holds the token, or no redaction:\n%s", filepath.Base(p), b)
		}
	}
}

// latch -p, with $LATCH_SERVE_TOKEN set in the shell as a gateway's
// users keep it: a server inheriting the whole environment does not see
// the variable, and a server that knows the token and puts it in its
// error has it redacted in -p's output, the log and what the model is
// sent.
func TestPromptServeTokenHeldFromUpstream(t *testing.T) {
	t.Parallel()
	const token = "gw-token-held-p-3e8d0f44"
	fake := mcptestutil.BuildFakeMCP(t)
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"fake": map[string]any{"command": fake, "args": []string{"-getenv", "-fail-with", "upstream knows " + token},
			"env_inherit": true, "allow": []string{"getenv", "rpc_fail"}},
	}}, false, "LATCH_SERVE_TOKEN="+token)
	name := api.NewToolCallFunctionArguments()
	name.Set("name", "LATCH_SERVE_TOKEN")
	r.fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		{ID: "call_env", Function: api.ToolCallFunction{Name: "fake__getenv", Arguments: name}},
		{ID: "call_fail", Function: api.ToolCallFunction{Name: "fake__rpc_fail", Arguments: api.NewToolCallFunctionArguments()}}}}}},
		ollamatest.TextTurn("Done."))
	res := r.run("", "--model", e2eModel, "-p", "look around")
	if res.code != exitOK {
		t.Fatalf("exit %d, want 0", res.code)
	}
	req := r.lastRequest()
	if got := toolMessage(t, req, "call_env").Content; !strings.Contains(got, "LATCH_SERVE_TOKEN is not set") {
		t.Errorf("the server read $LATCH_SERVE_TOKEN: %q", got)
	}
	if got := toolMessage(t, req, "call_fail").Content; !strings.Contains(got, "upstream knows [redacted]") {
		t.Errorf("the model was sent the server's error as %q", got)
	}
	log, err := os.ReadFile(filepath.Join(r.state, r.onlySession()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	reqs, _ := json.Marshal(r.fake.Requests())
	for where, s := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "the log": string(log),
		"the requests to the model": string(reqs)} {
		if strings.Contains(s, token) {
			t.Errorf("%s holds the gateway's token: %s", where, s)
		}
	}
}

// latch -p with the gateway's token where a config names it instead of
// $LATCH_SERVE_TOKEN: in serve.token_env's variable, or in
// serve.token_file (one of them at a time, as the config takes them). A
// server inheriting the whole environment does not see a variable that
// holds the token (serve.token_env's, or with token_file another that
// holds the same value), and a server that knows the token and puts it
// in its error has it redacted in -p's output, the log and what the
// model is sent.
func TestPromptServeTokenSourcesHeldFromUpstream(t *testing.T) {
	const envVar = "LATCH_TEST_GW_TOKEN"
	fake := mcptestutil.BuildFakeMCP(t)
	tokenFile := filepath.Join(t.TempDir(), "gw-token")
	for _, tc := range []struct {
		name, token string
		serve       map[string]any
	}{
		{"token_env", "gw-token-env-5a1c7e90", map[string]any{"token_env": envVar}},
		{"token_file", "gw-token-file-8b2d4f16", map[string]any{"token_file": tokenFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.WriteFile(tokenFile, []byte(tc.token+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			r := newPromptRig(t, map[string]any{
				"serve": tc.serve,
				"mcpServers": map[string]any{"fake": map[string]any{"command": fake,
					"args":        []string{"-getenv", "-fail-with", "upstream knows " + tc.token},
					"env_inherit": true, "allow": []string{"getenv", "rpc_fail"}}},
			}, false, envVar+"="+tc.token)
			name := api.NewToolCallFunctionArguments()
			name.Set("name", envVar)
			r.fake.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
				{ID: "call_env", Function: api.ToolCallFunction{Name: "fake__getenv", Arguments: name}},
				{ID: "call_fail", Function: api.ToolCallFunction{Name: "fake__rpc_fail", Arguments: api.NewToolCallFunctionArguments()}}}}}},
				ollamatest.TextTurn("Done."))
			res := r.run("", "--model", e2eModel, "-p", "look around")
			if res.code != exitOK {
				t.Fatalf("exit %d, want 0", res.code)
			}
			req := r.lastRequest()
			if got := toolMessage(t, req, "call_env").Content; !strings.Contains(got, envVar+" is not set") {
				t.Errorf("the server read $%s, which holds the token: %q", envVar, got)
			}
			if got := toolMessage(t, req, "call_fail").Content; !strings.Contains(got, "upstream knows [redacted]") {
				t.Errorf("the model was sent the server's error as %q", got)
			}
			log, err := os.ReadFile(filepath.Join(r.state, r.onlySession()+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			reqs, _ := json.Marshal(r.fake.Requests())
			for where, s := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "the log": string(log),
				"the requests to the model": string(reqs)} {
				if strings.Contains(s, tc.token) {
					t.Errorf("%s holds the gateway's token: %s", where, s)
				}
			}
		})
	}
}
