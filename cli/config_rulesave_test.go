package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"latch/config"
	"latch/permissions"
)

// TestSaveRuleAppendsToTheConfig: a rule saved from the permission box
// (A, then a rule) is added at the end of permissions.rules — made when
// the file has no list, or no permissions — leaving every other byte and
// the file's permissions as they were; the config then loads it under
// the name saveRule gave it, and latch policy list shows it with that
// source. Another app's file is refused, untouched.
func TestSaveRuleAppendsToTheConfig(t *testing.T) {
	spec := permissions.RuleSpec{Tool: "fs__read_text_file", Args: map[string]any{"path": "~/src/proj/**"}, Decision: "allow"}
	const rule = `{"tool": "fs__read_text_file", "args": {"path": "~/src/proj/**"}, "decision": "allow"}`
	cases := []struct{ name, body, want string }{
		{"after the last rule",
			"{\n  \"theme\": \"nord\",\n  \"permissions\": {\n    \"mode\": \"ask\",\n    \"rules\": [\n      {\"tool\": \"*\", \"args\": {\"*\": \"~/.ssh/**\"}, \"decision\": \"deny\"}\n    ]\n  },\n  \"mcpServers\": {\"fs\": {\"command\": \"x\"}}\n}\n",
			"{\n  \"theme\": \"nord\",\n  \"permissions\": {\n    \"mode\": \"ask\",\n    \"rules\": [\n      {\"tool\": \"*\", \"args\": {\"*\": \"~/.ssh/**\"}, \"decision\": \"deny\"},\n      " + rule + "\n    ]\n  },\n  \"mcpServers\": {\"fs\": {\"command\": \"x\"}}\n}\n"},
		{"an empty list",
			`{"permissions": {"rules": [ ]}, "mcpServers": {"fs": {"command": "x"}}}`,
			`{"permissions": {"rules": [` + rule + `]}, "mcpServers": {"fs": {"command": "x"}}}`},
		{"no rules yet",
			"{\"mcpServers\": {\"fs\": {\"command\": \"x\"}},\n \"permissions\": {\"mode\": \"ask\"}}",
			"{\"mcpServers\": {\"fs\": {\"command\": \"x\"}},\n \"permissions\": {\"rules\": [" + rule + "],\"mode\": \"ask\"}}"},
		{"no permissions",
			"{\n\t\"theme\": \"nord\",\n\t\"mcpServers\": {\"fs\": {\"command\": \"x\"}}\n}\n",
			"{\n\t\"permissions\": {\"rules\": [" + rule + "]},\n\t\"theme\": \"nord\",\n\t\"mcpServers\": {\"fs\": {\"command\": \"x\"}}\n}\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path, dir := writeConfig(t, tc.body)
			if err := os.Chmod(path, 0o640); err != nil {
				t.Fatal(err)
			}
			env := envOf(map[string]string{"HOME": dir})
			cfg, err := config.Load(path, env)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ruleFile(cfg, env); err != nil || got != path {
				t.Fatalf("ruleFile = %q, %v; want %s", got, err, path)
			}
			r, err := saveRule(cfg, env, spec)
			if err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(path)
			if string(data) != tc.want {
				t.Errorf("file:\n%s\nwant:\n%s", data, tc.want)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", fi.Mode().Perm())
			}
			again, err := config.Load(path, env)
			if err != nil {
				t.Fatal(err)
			}
			rules := again.Permissions.Rules
			if last := rules[len(rules)-1]; last.Origin != r.Origin || last.Compact() != r.Compact() || last.DecisionName() != "allow" {
				t.Fatalf("reloaded, the last rule is %s from %s; saveRule said %s from %s", last.Compact(), last.Origin, r.Compact(), r.Origin)
			}
			out, errs, code := runLatch(t, dir, "--config", path, "policy", "list")
			if want := "allow fs__read_text_file(path=~/src/proj/**)\n        from " + r.Origin + "\n"; code != exitOK || !strings.Contains(out, want) {
				t.Errorf("latch policy list (exit %d, %s) does not show %q:\n%s", code, errs, want, out)
			}
		})
	}
	t.Run("no file yet", func(t *testing.T) {
		home := t.TempDir()
		env := envOf(map[string]string{"HOME": home})
		r, err := saveRule(&config.Config{}, env, spec)
		want := filepath.Join(home, ".config", "latch", "config.json")
		if err != nil || r.Origin != "config "+want+": permissions.rules[0]" {
			t.Fatalf("saveRule = %s, %v", r.Origin, err)
		}
		if cfg, err := config.Load(want, env); err != nil || len(cfg.Permissions.Rules) != 1 || cfg.Permissions.Rules[0].Origin != r.Origin {
			t.Fatalf("the new file loads as %+v, %v", cfg, err)
		}
	})
	t.Run("another app's file", func(t *testing.T) {
		body := `{"mcpServers": {"fs": {"command": "x"}}, "globalShortcut": "Ctrl+Space"}`
		path, dir := writeConfig(t, body)
		env := envOf(map[string]string{"HOME": dir})
		cfg, err := config.Load(path, env)
		if err != nil {
			t.Fatal(err)
		}
		if !cfg.Foreign {
			t.Skip("not read as another app's file")
		}
		if _, err := ruleFile(cfg, env); err == nil || !strings.Contains(err.Error(), "to save a rule") {
			t.Errorf("ruleFile: %v", err)
		}
		if _, err := saveRule(cfg, env, spec); err == nil {
			t.Error("saved into another app's file")
		}
		if data, _ := os.ReadFile(path); string(data) != body {
			t.Errorf("another app's file changed:\n%s", data)
		}
	})
}

// TestSaveRuleFromTwoProcessesKeepsBoth: two latch processes saving a
// rule to the same config at the same moment each keep theirs: the file
// is read, edited and replaced under its lock, so no save is lost to the
// other's (flock locks between two opens as between two processes).
func TestSaveRuleFromTwoProcessesKeepsBoth(t *testing.T) {
	path, dir := writeConfig(t, `{"permissions": {"rules": []}, "mcpServers": {"fs": {"command": "x"}}}`)
	env := envOf(map[string]string{"HOME": dir})
	cfg, err := config.Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	const each = 20
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Go(func() {
			for i := range each {
				spec := permissions.RuleSpec{Tool: "fs__read_text_file", Decision: "allow",
					Args: map[string]any{"path": fmt.Sprintf("~/w%d/f%d", w, i)}}
				if _, err := saveRule(cfg, env, spec); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	got, err := config.Load(path, env)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.Permissions.Rules); n != 2*each {
		t.Fatalf("%d rules in the file, want all %d saved", n, 2*each)
	}
}
