package main

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// serverNamed returns the loaded server called name.
func serverNamed(t *testing.T, cfg *Config, name string) ServerConfig {
	t.Helper()
	for _, s := range cfg.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, cfg.Servers)
	return ServerConfig{}
}

// warningsWith returns the warnings containing sub.
func warningsWith(cfg *Config, sub string) []string {
	var out []string
	for _, w := range cfg.Warnings {
		if strings.Contains(w, sub) {
			out = append(out, w)
		}
	}
	return out
}

// TestLoadConfigClaudeDesktopApp: a Claude Desktop file as the app writes
// it (globalShortcut, preferences) loads, with one notice naming the keys
// latch ignores.
func TestLoadConfigClaudeDesktopApp(t *testing.T) {
	path := copyFixture(t, "claude_desktop_real.json")
	cfg, err := LoadConfig(path, fakeEnv(nil))
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if got := []string{cfg.Servers[0].Name, cfg.Servers[1].Name}; !reflect.DeepEqual(got, []string{"filesystem", "github"}) {
		t.Errorf("servers = %v", got)
	}
	if gh := serverNamed(t, cfg, "github"); gh.Transport != "stdio" || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] == "" {
		t.Errorf("github = %+v", gh)
	}
	notes := warningsWith(cfg, "ignored")
	want := "config " + path + ": keys of another app's config that latch has no use for are ignored: globalShortcut, preferences"
	if len(notes) != 1 || notes[0] != want {
		t.Errorf("notices = %q, want one: %q", cfg.Warnings, want)
	}
}

// TestLoadConfigVSCodeApp: a VS Code mcp.json with inputs loads.
// ${env:…} and ${workspaceFolder} are filled in; a server that needs an
// ${input:…} value says so (it is asked for at start, or the server is
// left out with a line naming it, the input and what to do); envFile is
// named among the ignored keys.
func TestLoadConfigVSCodeApp(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "config", "vscode_mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	path := filepath.Join(work, ".vscode", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	dotenv := "# fetch's settings\nexport FETCH_UA='latch test'\nFETCH_PROXY=http://127.0.0.1:3128 # the proxy\n\nFETCH_NOTE=\"two\\nlines\"\n"
	if err := os.WriteFile(filepath.Join(work, ".env"), []byte(dotenv), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path, fakeEnv(map[string]string{"NODE_OPTIONS": "--max-old-space-size=512"}))
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if env := serverNamed(t, cfg, "fetch").Env; !reflect.DeepEqual(env, map[string]string{
		"FETCH_UA": "latch test", "FETCH_PROXY": "http://127.0.0.1:3128", "FETCH_NOTE": "two\nlines"}) {
		t.Errorf("fetch's env from its envFile = %q", env)
	}
	var got []string
	for _, s := range cfg.Servers {
		got = append(got, s.Name+":"+s.Transport)
	}
	if want := []string{"fetch:stdio", "files:stdio", "github:http", "legacy:sse", "perplexity:stdio"}; !reflect.DeepEqual(got, want) {
		t.Errorf("servers = %v, want %v", got, want)
	}
	files := serverNamed(t, cfg, "files")
	if files.Args[2] != work || files.Env["NODE_OPTIONS"] != "--max-old-space-size=512" {
		t.Errorf("files: args %q env %q; want the workspace folder %s and the variable's value", files.Args, files.Env, work)
	}
	if p := serverNamed(t, cfg, "perplexity"); !reflect.DeepEqual(p.Inputs, []string{"perplexity-key"}) ||
		cfg.Inputs["perplexity-key"].Description != "Perplexity API Key" {
		t.Errorf("perplexity: inputs %q, the file's %+v", p.Inputs, cfg.Inputs)
	}
	if notes := warningsWith(cfg, "ignored"); len(notes) != 0 {
		t.Errorf("ignored notice = %q (envFile is read)", notes)
	}

	given, err := LoadConfig(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	given.fillInputs(map[string]string{"perplexity-key": "pplx-typed-value"})
	if p := serverNamed(t, given, "perplexity"); p.Env["PERPLEXITY_API_KEY"] != "pplx-typed-value" || len(p.Inputs) != 0 ||
		!reflect.DeepEqual(p.Secrets, []string{"pplx-typed-value"}) {
		t.Errorf("filled: env %q inputs %q secrets %d", p.Env, p.Inputs, len(p.Secrets))
	}

	cfg.fillInputs(nil)
	if slices.ContainsFunc(cfg.Servers, func(s ServerConfig) bool { return s.Name == "perplexity" }) {
		t.Error("perplexity is loaded without its value")
	}
	if refused := warningsWith(cfg, `server "perplexity": needs ${input:perplexity-key}`); len(refused) != 1 ||
		!strings.Contains(refused[0], "not loaded") || !strings.Contains(refused[0], "token_env") {
		t.Errorf("refusal = %q", cfg.Warnings)
	}
}

// TestLoadConfigClineApp: a Cline file loads: alwaysAllow and autoApprove
// are the server's allow, exact tool names only (a pattern, a number or
// "@sampling" allows nothing), disabled disables, a timeout in seconds is
// a timeout, transportType a transport.
func TestLoadConfigClineApp(t *testing.T) {
	cfg, err := LoadConfig(copyFixture(t, "cline_mcp_settings.json"), fakeEnv(nil))
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	fs, weather, brave := serverNamed(t, cfg, "filesystem"), serverNamed(t, cfg, "weather"), serverNamed(t, cfg, "brave-search")
	if !reflect.DeepEqual(fs.Allow, []string{"list_directory", "read_file"}) || fs.Disabled || fs.Timeout != 60*time.Second || fs.Transport != "stdio" {
		t.Errorf("filesystem = allow %q disabled %v timeout %v transport %q", fs.Allow, fs.Disabled, fs.Timeout, fs.Transport)
	}
	if !reflect.DeepEqual(weather.Allow, []string{"get_forecast"}) || !weather.Disabled {
		t.Errorf("weather = allow %q disabled %v", weather.Allow, weather.Disabled)
	}
	if !reflect.DeepEqual(brave.Allow, []string{"brave_web_search"}) || brave.Timeout != 120*time.Second || brave.Transport != "sse" {
		t.Errorf("brave-search = allow %q timeout %v transport %q", brave.Allow, brave.Timeout, brave.Transport)
	}
	for _, want := range []string{
		`server "filesystem": alwaysAllow: these tools run without asking (the server's allow): list_directory, read_file`,
		`server "brave-search": alwaysAllow[1]: "*": latch matches tool names exactly; it allows nothing`,
		`server "brave-search": alwaysAllow[2]: not a tool name (number); it allows nothing`,
		`server "brave-search": alwaysAllow[3]: "@sampling" is not a tool name; it allows nothing`,
	} {
		if len(warningsWith(cfg, want)) != 1 {
			t.Errorf("no notice %q in %q", want, cfg.Warnings)
		}
	}
	// The gate's policy holds exactly those tools of exactly that server.
	p := (&settings{cfg: cfg, mode: "read_only"}).policy()
	if !reflect.DeepEqual(p.ServerAllow["brave-search"], []string{"brave_web_search"}) || len(p.Allow) != 0 {
		t.Errorf("policy: %+v", p)
	}
}

// TestLoadConfigOwnFormatStrict: latch's own format keeps refusing keys it
// does not know, with a "did you mean", other apps' keys included; in
// another app's file, a key no app defines is refused the same way.
func TestLoadConfigOwnFormatStrict(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"model": "m", "mcpServers": {"fs": {"command": "x", "alwaysAllow": ["a"]}}}`, `unknown key "alwaysAllow"; did you mean "allow"?`},
		{`{"model": "m", "globalShortcut": "Alt+Space"}`, `unknown key "globalShortcut"`},
		{`{"mcpServers": {"fs": {"comand": "x", "alwaysAllow": ["a"]}}}`, `unknown key "comand"; did you mean "command"?`},
		{`{"globalShortcut": "x", "mcpServerz": {}}`, `unknown key "mcpServerz"; did you mean "mcpServers"?`},
	} {
		path, _ := writeConfig(t, tc.body)
		_, err := LoadConfig(path, fakeEnv(nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.body, err, tc.want)
		}
	}
}

// TestPromptRefusesVSCodeInput: with -p there is no one to ask for an
// ${input:…} value: the run says which server and input, and what to do.
func TestPromptRefusesVSCodeInput(t *testing.T) {
	r := newPromptRig(t, nil, false)
	body := `{"inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
 "servers": {"search": {"type": "http", "url": "https://search.example.com/mcp", "headers": {"Authorization": "Bearer ${input:api-key}"}}}}`
	if err := os.WriteFile(r.cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	res := r.run("", "--model", e2eModel, "-p", "hi")
	want := `server "search": needs ${input:api-key}, a value VS Code asks for; with -p there is no one to ask for it, so this server is not loaded`
	if res.code != exitOK || !strings.Contains(res.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 0 and %q", res.code, res.stderr, want)
	}
	if slices.ContainsFunc(strings.Split(res.stderr, "\n"), func(l string) bool { return strings.Contains(l, "Bearer") }) {
		t.Errorf("the header's value is quoted: %q", res.stderr)
	}
}

// TestLoadConfigVSCodeEnvFile: a VS Code server's envFile is read (env
// wins over the file); a file that is missing or not NAME=VALUE lines is
// an error naming the server, the file and the line, never the line's
// text.
func TestLoadConfigVSCodeEnvFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	write := func(name, body string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("mcp.json", `{"servers": {"s": {"type": "stdio", "command": "srv", "envFile": "${workspaceFolder}/s.env", "env": {"A": "from env"}}}}`)
	write("s.env", "A=from file\nB=b\n")
	cfg, err := LoadConfig(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if env := serverNamed(t, cfg, "s").Env; !reflect.DeepEqual(env, map[string]string{"A": "from env", "B": "b"}) {
		t.Errorf("env = %q", env)
	}
	write("s.env", "B=b\nsecret-value-without-a-name\n")
	_, err = LoadConfig(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "s.env line 2: expected NAME=VALUE") || !strings.Contains(err.Error(), `"s"`) ||
		strings.Contains(err.Error(), "secret-value") {
		t.Errorf("a bad line: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "s.env")); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "cannot read "+filepath.Join(dir, "s.env")) || !strings.Contains(err.Error(), "envFile") {
		t.Errorf("a missing file: %v", err)
	}
}
