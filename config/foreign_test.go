package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
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
	cfg, err := Load(path, fakeEnv(nil))
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
	data, err := os.ReadFile(filepath.Join("testdata", "vscode_mcp.json"))
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
	cfg, err := Load(path, fakeEnv(map[string]string{"NODE_OPTIONS": "--max-old-space-size=512"}))
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

	given, err := Load(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	given.FillInputs(map[string]string{"perplexity-key": "pplx-typed-value"})
	if p := serverNamed(t, given, "perplexity"); p.Env["PERPLEXITY_API_KEY"] != "pplx-typed-value" || len(p.Inputs) != 0 ||
		!reflect.DeepEqual(p.Secrets, []string{"pplx-typed-value"}) {
		t.Errorf("filled: env %q inputs %q secrets %d", p.Env, p.Inputs, len(p.Secrets))
	}

	cfg.FillInputs(nil)
	if slices.ContainsFunc(cfg.Servers, func(s ServerConfig) bool { return s.Name == "perplexity" }) {
		t.Error("perplexity is loaded without its value")
	}
	if refused := warningsWith(cfg, `server "perplexity": needs ${input:perplexity-key}`); len(refused) != 1 ||
		!strings.Contains(refused[0], "not loaded") || !strings.Contains(refused[0], "token_env") {
		t.Errorf("refusal = %q", cfg.Warnings)
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
		_, err := Load(path, fakeEnv(nil))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.body, err, tc.want)
		}
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
	cfg, err := Load(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if env := serverNamed(t, cfg, "s").Env; !reflect.DeepEqual(env, map[string]string{"A": "from env", "B": "b"}) {
		t.Errorf("env = %q", env)
	}
	write("s.env", "B=b\nsecret-value-without-a-name\n")
	_, err = Load(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "s.env line 2: expected NAME=VALUE") || !strings.Contains(err.Error(), `"s"`) ||
		strings.Contains(err.Error(), "secret-value") {
		t.Errorf("a bad line: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, "s.env")); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "cannot read "+filepath.Join(dir, "s.env")) || !strings.Contains(err.Error(), "envFile") {
		t.Errorf("a missing file: %v", err)
	}
}

// TestLoadConfigClineRooDefaults: Cline's and Roo's files load as those
// apps write them, with their default values: empty alwaysAllow and
// autoApprove lists (no tool runs without asking, and no notice says one
// does), a timeout in seconds, a type or transportType, Roo's watchPaths
// and disabledTools. A server the file disables is loaded disabled, and a
// notice says it is not connected at start.
func TestLoadConfigClineRooDefaults(t *testing.T) {
	for _, tc := range []struct {
		fixture  string
		servers  []string // name:transport, "-" when disabled
		disabled []string
		ignored  string
	}{
		{"cline_defaults.json",
			[]string{"context7:http", "filesystem:stdio", "legacy-sse:sse-", "memory:stdio-"},
			[]string{"legacy-sse", "memory"}, ""},
		{"roo_mcp_settings.json",
			[]string{"docs:http", "git:stdio-", "puppeteer:stdio"},
			[]string{"git"}, `server "git": disabledTools, server "git": watchPaths`},
	} {
		cfg, err := Load(copyFixture(t, tc.fixture), fakeEnv(nil))
		if err != nil {
			t.Errorf("%s refused: %v", tc.fixture, err)
			continue
		}
		var got []string
		for _, s := range cfg.Servers {
			g := s.Name + ":" + s.Transport
			if s.Disabled {
				g += "-"
			}
			if len(s.Allow) != 0 || (s.Timeout != 0 && s.Timeout != DefaultTimeout) {
				t.Errorf("%s: %s allow %q timeout %v", tc.fixture, s.Name, s.Allow, s.Timeout)
			}
			got = append(got, g)
		}
		slices.Sort(got)
		if !reflect.DeepEqual(got, tc.servers) {
			t.Errorf("%s: servers %q, want %q", tc.fixture, got, tc.servers)
		}
		for _, name := range tc.disabled {
			want := `server "` + name + `": disabled: disabled in the file: loaded but not connected at start (/connect starts it)`
			if len(warningsWith(cfg, want)) != 1 {
				t.Errorf("%s: no notice %q in %q", tc.fixture, want, cfg.Warnings)
			}
		}
		if n := warningsWith(cfg, "disabled in the file"); len(n) != len(tc.disabled) {
			t.Errorf("%s: disabled notices %q", tc.fixture, n)
		}
		if n := warningsWith(cfg, "without asking"); len(n) != 0 {
			t.Errorf("%s: an empty list is said to allow tools: %q", tc.fixture, n)
		}
		if n := warningsWith(cfg, "ignored"); (tc.ignored == "") != (len(n) == 0) || (len(n) == 1 && !strings.Contains(n[0], tc.ignored)) {
			t.Errorf("%s: ignored notice %q, want one naming %q", tc.fixture, n, tc.ignored)
		}
	}
}

// TestLoadConfigForeignAllowErrorNamesFileKey: a Cline list of the wrong
// type is an error naming the key the file has (alwaysAllow), never
// latch's allow, which the file does not have.
func TestLoadConfigForeignAllowErrorNamesFileKey(t *testing.T) {
	for _, body := range []string{
		`{"mcpServers": {"fs": {"command": "x", "alwaysAllow": "read_file"}}}`,
		`{"mcpServers": {"fs": {"command": "x", "autoApprove": null, "alwaysAllow": []}}}`,
	} {
		path, _ := writeConfig(t, body)
		_, err := Load(path, fakeEnv(nil))
		if err == nil || strings.Contains(err.Error(), ": allow:") || !strings.Contains(err.Error(), `server "fs": `) {
			t.Errorf("%s: err = %v; want one naming the file's key, not allow", body, err)
		}
	}
}
