package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzConfigRules loads configs whose permissions.rules and a server's
// rules are random JSON: no panic; every error names the file, and every
// error about a rule names the rule's list and index.
func FuzzConfigRules(f *testing.F) {
	for _, s := range []string{
		`[{"tool": "fs__read_text_file", "args": {"path": "~/src/proj/**"}, "decision": "allow"}]`,
		`[{"tool": "*", "args": {"*": "~/.ssh/**"}, "decision": "deny"}, {"tool": "x", "decision": "maybe"}]`,
		`[{"tool": "shell__run", "args": {"command": "re:^git (status|diff|log)\\b"}, "decision": "ask"}]`,
		`[{"tool": "t", "args": {"n": 1, "b": true, "o": {}, "l": [], "z": null}, "decision": "deny"}]`,
		`[{"tool": "t", "args": {"p": "re:("}, "decision": "deny", "extra": 1}, 3, "x", null]`,
		`{}`, `[{"tool": "", "args": {"": "~bob/x"}}]`, `[{"tool": "t", "args": {"p": "/a/../b/**"}, "decision": "deny"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rules string) {
		dir := t.TempDir()
		path := filepath.Join(dir, "latch.json")
		body := `{"permissions": {"rules": ` + rules + `}, "servers": {"fs": {"command": "x", "rules": ` + rules + `}}}`
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
		if err == nil {
			return
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, "config "+path) {
				t.Fatalf("an error that does not name the file: %q", line)
			}
			if strings.Contains(line, "rules") && !strings.Contains(line, "invalid JSON") &&
				!strings.Contains(line, "permissions.rules") && !strings.Contains(line, `server "fs": rules`) {
				t.Fatalf("an error about rules that does not name the list: %q", line)
			}
		}
	})
}
