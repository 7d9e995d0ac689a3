package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadConfigLatchSection: another app's file (Cursor's mcp.json) with
// a top-level "latch" object: its servers and latch's settings load; a
// typo in the section is an error with a "did you mean"; latch still
// writes nothing into the file, and says how to keep a model instead.
func TestLoadConfigLatchSection(t *testing.T) {
	path := copyFixture(t, "cursor_mcp_latch.json")
	cfg, err := Load(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "qwen3:8b" || cfg.Permissions.Mode != "ask" || len(cfg.Permissions.Allow) != 1 || len(cfg.Servers) != 2 {
		t.Errorf("model %q mode %q allow %q servers %d", cfg.Model, cfg.Permissions.Mode, cfg.Permissions.Allow, len(cfg.Servers))
	}
	if _, err := Target(cfg, fakeEnv(map[string]string{"HOME": t.TempDir()}), "to keep a default model"); err == nil ||
		!strings.Contains(err.Error(), `{"import": "`+path+`"}`) {
		t.Errorf("Target = %v, want a refusal showing the import", err)
	}
	bad, _ := writeConfig(t, `{"mcpServers": {}, "latch": {"modle": "x"}}`)
	if _, err := Load(bad, fakeEnv(nil)); err == nil || !strings.Contains(err.Error(), `latch: unknown key "modle"; did you mean "model"?`) {
		t.Errorf("err = %v", err)
	}
}

// TestLoadConfigImport: latch's own file imports Cursor's and VS Code's
// files: their servers (and inputs) join, a server of latch's own file
// wins with a notice, latch writes its model into its own file, and an
// error inside an imported file names that file and its place.
func TestLoadConfigImport(t *testing.T) {
	home := t.TempDir()
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	vscode := filepath.Join(home, "work", ".vscode", "mcp.json")
	for p, fixture := range map[string]string{cursor: "cursor_mcp_latch.json", vscode: "vscode_mcp_jsonc.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", fixture))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	path, _ := writeConfig(t, `{
  // Cursor's servers and VS Code's, with latch's model
  "import": ["~/.cursor/mcp.json", "`+vscode+`"],
  "model": "llama3.2",
  "mcpServers": {"playwright": {"command": "my-playwright"}},
}`)
	env := fakeEnv(map[string]string{"HOME": home})
	cfg, err := Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "context7 github perplexity playwright" {
		t.Errorf("servers = %s", got)
	}
	if serverNamed(t, cfg, "playwright").Command != "my-playwright" || len(warningsWith(cfg, `server "playwright": also in `+cursor)) != 1 {
		t.Errorf("latch's own playwright should win, with a notice: %q", cfg.Warnings)
	}
	if cfg.Model != "llama3.2" || !cfg.Inputs["perplexity-key"].Password || len(cfg.Imported) != 2 {
		t.Errorf("model %q inputs %+v imported %q", cfg.Model, cfg.Inputs, cfg.Imported)
	}
	cfg.FillInputs(map[string]string{"perplexity-key": "typed"})
	if p := serverNamed(t, cfg, "perplexity"); p.Env["PERPLEXITY_API_KEY"] != "typed" {
		t.Errorf("an imported file's input was not filled: %q", p.Env)
	}
	target, err := Target(cfg, env, "to keep a default model")
	if real, _ := filepath.EvalSymlinks(path); err != nil || target != real {
		t.Errorf("Target = %q, %v; want latch's own file %s", target, err, path)
	}

	if err := os.WriteFile(cursor, []byte("{\n  \"mcpServers\": {\n    \"x\": {\"command\": \"y\", \"timout\": 5}\n  }\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, env)
	if err == nil || !strings.Contains(err.Error(), "config "+cursor+`: server "x": unknown key "timout"; did you mean "timeout"?`) {
		t.Errorf("err = %v, want the imported file named", err)
	}
	if err := os.WriteFile(cursor, []byte("{\n  // c\n  \"mcpServers\": {,}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err = Load(path, env); err == nil || !strings.Contains(err.Error(), "config "+cursor+":3:18: invalid JSON") {
		t.Errorf("err = %v, want the imported file's place", err)
	}
}
