package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/config"
)

// TestSaveModelChangesOnlyTheModel: keeping a model as the default (ctrl+s
// in the picker) writes "model" into the config file latch loaded and
// leaves every other byte, and the file's permissions, as they were; with
// no file loaded it makes latch's own at the default path; a file of
// another app's shape is refused, untouched.
func TestSaveModelChangesOnlyTheModel(t *testing.T) {
	t.Run("replaces the value", func(t *testing.T) {
		body := "{\n\t\"theme\":   \"nord\",\n\t\"model\" :  \"qwen3:8b\" , \"mcpServers\": {\"fs\": {\"command\": \"x\",\n    \"allow\": [\"read\"]}}\n}\n"
		path, _ := writeConfig(t, body)
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
		cfg, err := config.Load(path, envOf(nil))
		if err != nil {
			t.Fatal(err)
		}
		got, err := saveModel(cfg, envOf(nil), "llama3.2:3b")
		if err != nil || got != path {
			t.Fatalf("saveModel = %q, %v; want %s", got, err, path)
		}
		data, _ := os.ReadFile(path)
		if want := strings.Replace(body, `"qwen3:8b"`, `"llama3.2:3b"`, 1); string(data) != want {
			t.Errorf("file:\n%s\nwant:\n%s", data, want)
		}
		if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
			t.Errorf("mode %v, want 0640", fi.Mode().Perm())
		}
		if again, err := config.Load(path, envOf(nil)); err != nil || again.Model != "llama3.2:3b" {
			t.Errorf("reloaded: %+v, %v", again, err)
		}
	})
	t.Run("adds the key", func(t *testing.T) {
		body := "{\n  \"theme\": \"nord\",\n  \"ollama\": {\"think\": false}\n}\n"
		path, _ := writeConfig(t, body)
		cfg, err := config.Load(path, envOf(nil))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := saveModel(cfg, envOf(nil), "gemma:2b"); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if want := "{\n  \"model\": \"gemma:2b\",\n  \"theme\": \"nord\",\n  \"ollama\": {\"think\": false}\n}\n"; string(data) != want {
			t.Errorf("file:\n%s\nwant:\n%s", data, want)
		}
	})
	t.Run("no file loaded", func(t *testing.T) {
		home := t.TempDir()
		getenv := envOf(map[string]string{"HOME": home})
		got, err := saveModel(&config.Config{}, getenv, "gemma:2b")
		want := filepath.Join(home, ".config", "latch", "config.json")
		if err != nil || got != want {
			t.Fatalf("saveModel = %q, %v; want %s", got, err, want)
		}
		if p, _ := config.Find("", getenv); p != want {
			t.Errorf("Find = %q: the file written is not the one latch reads", p)
		}
		cfg, err := config.Load(want, getenv)
		if err != nil || cfg.Model != "gemma:2b" {
			t.Errorf("written file: %+v, %v", cfg, err)
		}
		if fi, _ := os.Stat(want); fi.Mode().Perm() != 0o600 {
			t.Errorf("mode %v, want 0600", fi.Mode().Perm())
		}
	})
	t.Run("another app's file", func(t *testing.T) {
		path := copyFixture(t, "claude_desktop_real.json")
		before, _ := os.ReadFile(path)
		cfg, err := config.Load(path, envOf(nil))
		if err != nil {
			t.Fatal(err)
		}
		_, err = saveModel(cfg, envOf(map[string]string{"HOME": t.TempDir()}), "gemma:2b")
		if err == nil || !strings.Contains(err.Error(), "is another app's config file, which latch does not change") {
			t.Errorf("err = %v", err)
		}
		if after, _ := os.ReadFile(path); string(after) != string(before) {
			t.Errorf("the file changed:\n%s", after)
		}
	})
}
