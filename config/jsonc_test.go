package config

import (
	"os"
	"strings"
	"testing"

	"latch/permissions"
)

// TestLoadConfigVSCodeWithComments: VS Code's mcp.json as VS Code writes
// it, with comments and trailing commas, loads: its servers and inputs.
func TestLoadConfigVSCodeWithComments(t *testing.T) {
	cfg, err := Load(copyFixture(t, "vscode_mcp_jsonc.json"), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := serverNamed(t, cfg, "github"); got.URL != "https://api.githubcopilot.com/mcp/" || got.Transport != "http" {
		t.Errorf("github = %+v", got)
	}
	if got := serverNamed(t, cfg, "perplexity"); len(got.Inputs) != 1 || got.Inputs[0] != "perplexity-key" {
		t.Errorf("perplexity inputs = %v", got.Inputs)
	}
	if in := cfg.Inputs["perplexity-key"]; !in.Password || in.Description != "Perplexity API Key" {
		t.Errorf("inputs = %+v", cfg.Inputs)
	}
}

// TestLoadConfigVSCodeSettings: the servers of VS Code's settings.json
// (its "mcp" section, beside the editor's settings, with comments and
// trailing commas) load; the editor's settings are no error.
func TestLoadConfigVSCodeSettings(t *testing.T) {
	cfg, err := Load(copyFixture(t, "vscode_settings.json"), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := serverNamed(t, cfg, "memory"); got.Command != "npx" || len(got.Args) != 2 {
		t.Errorf("memory = %+v", got)
	}
	if got := serverNamed(t, cfg, "search"); len(got.Inputs) != 1 || got.Inputs[0] != "api-key" || !cfg.Inputs["api-key"].Password {
		t.Errorf("search = %+v, inputs %+v", got, cfg.Inputs)
	}
	if !cfg.Foreign {
		t.Error("a VS Code settings file is not latch's to write into")
	}
	path, _ := writeConfig(t, `{"editor.tabSize": 2, "mcp": {"servers": {"m": {"command": "x"}}}, "latch": {"model": "qwen3:8b"}}`)
	if cfg, err := Load(path, fakeEnv(nil)); err != nil || cfg.Model != "qwen3:8b" || len(cfg.Servers) != 1 {
		t.Errorf("settings.json with a latch section: %v", err)
	}
}

// TestLoadConfigCommentKeepsPlaces: an error after a comment (a block
// comment of several lines, a line comment) names the line and column
// where the person sees it in the file, syntax errors and duplicate keys
// alike.
func TestLoadConfigCommentKeepsPlaces(t *testing.T) {
	path, _ := writeConfig(t, "{\n  /* a comment\n     of two lines */ \"model\": \"m\", // and one more\n  \"theme\": \"x\" \"mouse\": true\n}\n")
	_, err := Load(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), path+":4:16: invalid JSON") {
		t.Fatalf("err = %v, want it at %s:4:16", err, path)
	}
	path, _ = writeConfig(t, "{\n  // one\n  \"model\": \"m\",\n  \"mcpServers\": {\"a\": {\"command\": \"x\", /* c */ \"command\": \"y\",},},\n}\n")
	_, err = Load(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), `server "a": duplicate key "command"`) {
		t.Fatalf("err = %v", err)
	}
}

// TestWriteBackKeepsComments: the model picker's save and the A step's
// rule go into a latch file with comments and trailing commas, and the
// comments stay where they were.
func TestWriteBackKeepsComments(t *testing.T) {
	body := "{\n  // my model\n  \"model\": \"old\", // chosen in the picker\n  \"permissions\": {\n    /* rules */\n    \"rules\": [\n      {\"tool\": \"fs__x\", \"decision\": \"deny\"}, // no\n    ],\n  },\n}\n"
	out, err := WithModel([]byte(body), "new")
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(body, `"old"`, `"new"`, 1); string(out) != want {
		t.Fatalf("WithModel:\n%s\nwant\n%s", out, want)
	}
	out, idx, err := WithRule(out, permissions.RuleSpec{Tool: "fs__y", Decision: "allow"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"// my model", "// chosen in the picker", "/* rules */", "// no"} {
		if !strings.Contains(string(out), c) {
			t.Errorf("comment %q lost:\n%s", c, out)
		}
	}
	path, _ := writeConfig(t, string(out))
	cfg, err := Load(path, fakeEnv(nil))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if cfg.Model != "new" || idx != 1 || len(cfg.Permissions.Rules) != 2 {
		t.Errorf("model %q, rule %d of %d:\n%s", cfg.Model, idx, len(cfg.Permissions.Rules), out)
	}
	_ = os.Remove(path)
}

// TestLoadConfigTooDeep: a file nested millions deep (a hostile project
// file) is an error naming where, not a crash; brackets in strings and
// comments do not count.
func TestLoadConfigTooDeep(t *testing.T) {
	path, _ := writeConfig(t, "{\"model\": \"m\", \"x\": "+strings.Repeat("[", 2_000_000))
	_, err := Load(path, fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), path+":1:10020: invalid JSON: nested deeper than 10000 levels") {
		t.Fatalf("err = %v", err)
	}
	deepText := strings.Repeat("[", 20000)
	path, _ = writeConfig(t, "{\"model\": \"m"+deepText+"\\\"\", // "+deepText+"\n /* "+deepText+" */ \"theme\": \"x\"}")
	if cfg, err := Load(path, fakeEnv(nil)); err != nil || cfg.Theme != "x" {
		t.Fatalf("brackets in a string and comments: %v", err)
	}
}
