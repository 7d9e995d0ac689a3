package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// TestResumeMissingSession: --resume with an id no session has says so and
// where to look, exits 2, and leaves no lock file behind, on the screen's
// path and -p's.
func TestResumeMissingSession(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"tui", []string{"--resume", "nosuch"}},
		{"-p", []string{"--resume", "nosuch", "--model", "m", "-p", "hi"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			env := envOf(map[string]string{"HOME": home})
			var out, errb strings.Builder
			code := run(tc.args, strings.NewReader(""), &out, &errb, env)
			if want := "latch: no session nosuch; `latch sessions` lists them\n"; code != exitUsage || errb.String() != want {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
			}
			dir := session.StateDir(env)
			if _, err := os.Stat(filepath.Join(dir, "nosuch.lock")); !os.IsNotExist(err) {
				t.Errorf("a lock file was left behind: %v", err)
			}
		})
	}
}

// TestResumeChecksBeforeLocking: session.Resume of a missing session
// creates nothing in the state directory.
func TestResumeChecksBeforeLocking(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	_, _, err := session.Resume(session.Options{}, dir, "nosuch")
	if err == nil || err.Error() != "no session nosuch; `latch sessions` lists them" {
		t.Fatalf("Resume: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("Resume left %v behind", ents)
	}
}

// TestHelpSaysWhatRootDoes: --help does not promise the working directory
// as a root: roots are offered only when given.
func TestHelpSaysWhatRootDoes(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"--help"}, nil, &out, &errb, envOf(nil)); code != exitOK {
		t.Fatalf("--help: exit %d", code)
	}
	help := out.String() + errb.String()
	if strings.Contains(help, "default: the working directory") || !strings.Contains(help, "With none given, no roots are offered") {
		t.Errorf("--help on --root:\n%s", help)
	}
}

// TestPromptShowsAFailedServersStderr: -p says of a stdio server that
// failed what the chat says: the reason and its last stderr lines.
func TestPromptShowsAFailedServersStderr(t *testing.T) {
	fake := ollamatest.New(ollamatest.Model{Name: "m", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	fake.Script(ollamatest.TextTurn("hello"))
	home := t.TempDir()
	cfg := filepath.Join(home, "latch.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"broken": {"command": "sh",
		"args": ["-c", "echo 'cannot open database /var/db/x' >&2; exit 4"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	code := run([]string{"--config", cfg, "--model", "m", "-p", "hi"}, strings.NewReader(""), &out, &errb,
		envOf(map[string]string{"HOME": home, "OLLAMA_HOST": fake.Host()}))
	if code != exitOK || out.String() != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	want := "latch: MCP server broken failed: the server exited during the handshake (exit status 4)\n" +
		"last stderr lines:\n  cannot open database /var/db/x\n"
	if !strings.Contains(errb.String(), want) {
		t.Errorf("stderr %q\nlacks %q", errb.String(), want)
	}
}
