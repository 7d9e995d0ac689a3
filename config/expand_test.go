package config

import (
	"slices"
	"strings"
	"testing"
)

// claudeEnv is what a Claude Code .mcp.json (testdata/claude_code_mcp.json)
// needs set.
var claudeEnv = map[string]string{"API_TOKEN": "tok-SENTINEL-1", "DATABASE_URL": "postgres://db/x", "DB_PASSWORD": "pw-SENTINEL-2"}

// TestLoadConfigClaudeCodeVariables: ${VAR} and ${VAR:-default} in a
// Claude Code .mcp.json are expanded in url, headers, args and env; an
// expanded credential is no "literal credential" and joins the server's
// secrets (redacted everywhere), a plain setting does not.
func TestLoadConfigClaudeCodeVariables(t *testing.T) {
	cfg, err := Load(copyFixture(t, "claude_code_mcp.json"), fakeEnv(claudeEnv))
	if err != nil {
		t.Fatal(err)
	}
	api := serverNamed(t, cfg, "api-server")
	if api.URL != "https://api.example.com/mcp" || api.Headers["Authorization"] != "Bearer tok-SENTINEL-1" {
		t.Errorf("api-server: url %q, headers %q", api.URL, api.Headers)
	}
	if !slices.Contains(api.Secrets, "tok-SENTINEL-1") {
		t.Errorf("the header's token is not among the secrets: %d secrets", len(api.Secrets))
	}
	if w := warningsWith(cfg, "literal credential"); len(w) != 0 {
		t.Errorf("a ${VAR} header is warned about as a literal: %q", w)
	}
	db := serverNamed(t, cfg, "db")
	if db.Args[3] != "postgres://db/x" || db.Env["DB_PASSWORD"] != "pw-SENTINEL-2" || db.Env["LOG_LEVEL"] != "info" {
		t.Errorf("db: args %q env %q", db.Args, db.Env)
	}
	if !slices.Contains(db.Secrets, "pw-SENTINEL-2") || slices.Contains(db.Secrets, "info") || slices.Contains(db.Secrets, "postgres://db/x") {
		t.Errorf("db secrets: password in %v, plain values out", len(db.Secrets))
	}
	env := map[string]string{"API_BASE_URL": "http://127.0.0.1:9"}
	for k, v := range claudeEnv {
		env[k] = v
	}
	cfg, err = Load(copyFixture(t, "claude_code_mcp.json"), fakeEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	if u := serverNamed(t, cfg, "api-server").URL; u != "http://127.0.0.1:9/mcp" {
		t.Errorf("a set variable beats the default: url %q", u)
	}
}

// TestLoadConfigUnsetVariable: a variable that is not set and has no
// default is an error naming it, its place in the file and the server;
// every one at once; the value of none is ever in a message.
func TestLoadConfigUnsetVariable(t *testing.T) {
	path := copyFixture(t, "claude_code_mcp.json")
	_, err := Load(path, fakeEnv(map[string]string{"DB_PASSWORD": "pw-SENTINEL-2"}))
	if err == nil {
		t.Fatal("loaded with API_TOKEN and DATABASE_URL unset")
	}
	msg := err.Error()
	for _, want := range []string{
		path + `:7:34: server "api-server": headers.Authorization: variable API_TOKEN is not set`,
		path + `:13:51: server "db": args[3]: variable DATABASE_URL is not set`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "SENTINEL") {
		t.Errorf("a value is in the error:\n%s", msg)
	}
}

// TestLoadConfigVariableValueNotExpandedAgain: a variable's value that
// holds ${…} (another variable, a VS Code input) is taken as it is; and
// fields of the gate (allow, tools) are never expanded.
func TestLoadConfigVariableValueNotExpandedAgain(t *testing.T) {
	path, _ := writeConfig(t, `{
  "inputs": [{"id": "key", "type": "promptString", "password": true}],
  "mcpServers": {"s": {"command": "x", "args": ["${ARG}", "${input:key}"], "env": {"K": "${OTHER:-${SECRET}}"},
    "allow": ["${TOOL}"], "tools": ["${TOOL}"]}}
}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"ARG": "${SECRET} ${input:key}", "SECRET": "s3cret", "TOOL": "rm"}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.FillInputs(map[string]string{"key": "typed"})
	s := serverNamed(t, cfg, "s")
	if s.Args[0] != "${SECRET} ${input:key}" || s.Args[1] != "typed" {
		t.Errorf("args = %q: a value was expanded again", s.Args)
	}
	if s.Allow[0] != "${TOOL}" || s.Tools[0] != "${TOOL}" {
		t.Errorf("allow %q, tools %q: the gate's fields were expanded", s.Allow, s.Tools)
	}
	if s.Env["K"] == "s3cret" {
		t.Errorf("a default was expanded again: %q", s.Env["K"])
	}
}

// TestLoadConfigVariablePlaceAfterComments: the place of an unset
// variable counts the comments before it as the text they are.
func TestLoadConfigVariablePlaceAfterComments(t *testing.T) {
	path, _ := writeConfig(t, "{\n  /* servers\n     of the team */\n  \"mcpServers\": { // here\n    \"api\": {\"url\": \"https://h/mcp\", /* c */ \"headers\": {\"X-Key\": \"${TEAM_KEY}\"}},\n  },\n}\n")
	_, err := Load(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), path+`:5:67: server "api": headers.X-Key: variable TEAM_KEY is not set`) {
		t.Fatalf("err = %v", err)
	}
}
