package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestExportCommand: `latch export ID` prints the md transcript, with the
// token a config's token_file holds redacted; -o writes the file 0600;
// --format json prints the events a line each; an unknown id, or format,
// is a usage error.
func TestExportCommand(t *testing.T) {
	getenv, dir := sessionsDir(t)
	cfgDir := t.TempDir()
	const token = "file-token-4242-zz"
	if err := os.WriteFile(filepath.Join(cfgDir, "tok"), []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(cfgDir, "latch.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers": {"vault": {"url": "https://vault.example/mcp", "token_file": "tok", "disabled": true}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	id := "20261101-100000-expo00"
	writeLog(t, dir, id, time.Hour,
		`"type":"user_message","turn":1,"text":"my token is `+token+`"`,
		`"type":"assistant_message","turn":1,"content":"noted"`)
	latch := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(append([]string{"--config", cfg}, args...), strings.NewReader(""), &out, &errb, getenv)
		t.Logf("latch %q → exit %d\nstdout: %s\nstderr: %s", args, code, out.String(), errb.String())
		return code, out.String(), errb.String()
	}

	code, out, _ := latch("export", id)
	if code != exitOK || !strings.Contains(out, "## Turn 1 · you") || !strings.Contains(out, "my token is [redacted]") || strings.Contains(out, token) {
		t.Errorf("latch export: exit %d, want 0 and the md transcript with the token redacted", code)
	}
	file := filepath.Join(t.TempDir(), "out.html")
	if code, out, _ := latch("export", id, "--format", "html", "-o", file); code != exitOK || out != "" {
		t.Fatalf("latch export -o: exit %d, stdout %q", code, out)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the -o file: %v, mode %v; want 0600", err, fi)
	}
	if b, _ := os.ReadFile(file); !strings.HasPrefix(string(b), "<!DOCTYPE html>") || strings.Contains(string(b), token) {
		t.Errorf("the html file: %.200q", b)
	}
	code, out, _ = latch("export", "--format", "json", id)
	if lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n"); code != exitOK || len(lines) != 3 || strings.Contains(out, token) {
		t.Errorf("--format json: exit %d, %d lines, want 3 (one per event), no token", code, len(lines))
	}
	if code, _, errOut := latch("export", "20261101-100000-nosuch"); code != exitUsage || !strings.Contains(errOut, "no session 20261101-100000-nosuch") {
		t.Errorf("an unknown id: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := latch("export", id, "--format", "pdf"); code != exitUsage || !strings.Contains(errOut, "md, json or html") {
		t.Errorf("--format pdf: exit %d, stderr %q", code, errOut)
	}
}
