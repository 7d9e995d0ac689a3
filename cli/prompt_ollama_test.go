package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestPromptChecksOllamaFirst: a first -p with Ollama down, or without
// the model asked for, says so at once: before any server is started
// (the config's server would leave a mark), with status 1, in the words a
// turn says it with; and no session is left for latch sessions to list.
func TestPromptChecksOllamaFirst(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: "m", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	for _, tc := range []struct {
		name, host, model, want string
	}{
		{"ollama down", "", "m", "latch: cannot reach Ollama at http://"},
		{"no such model", fake.Host(), "nope", `latch: model "nope" not found on `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			mark := filepath.Join(home, "server-started")
			cfg := filepath.Join(home, "latch.json")
			if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"slow": {"command": "sh",
				"args": ["-c", "touch `+mark+`; sleep 30"]}}}`), 0o600); err != nil {
				t.Fatal(err)
			}
			host := tc.host
			if host == "" {
				host = closedPort(t)
			}
			env := envOf(map[string]string{"HOME": home, "XDG_STATE_HOME": filepath.Join(home, "state")})
			var out, errb strings.Builder
			code := run([]string{"--config", cfg, "--host", host, "--model", tc.model, "-p", "hi"}, strings.NewReader(""), &out, &errb, env)
			if code != exitError || !strings.HasPrefix(errb.String(), tc.want) || out.Len() != 0 {
				t.Fatalf("exit %d, stdout %q, stderr %q; want 1 and %q", code, out.String(), errb.String(), tc.want)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Errorf("the server was started before Ollama was checked")
			}
			if list, _ := session.List(session.StateDir(env)); len(list) != 0 {
				t.Errorf("the failed run left sessions: %+v", list)
			}
			if ents, _ := os.ReadDir(session.StateDir(env)); len(ents) != 0 {
				t.Errorf("the failed run left files: %v", ents)
			}
		})
	}
}
