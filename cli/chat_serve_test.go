package cli

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// latch --serve ADDR refuses to start as latch serve --listen does, and
// says why on the terminal before the screen opens: exit status 2.
func TestChatServeStartupErrors(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "latch.json")
	if err := os.WriteFile(cfg, []byte(`{"model":"m"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	token := map[string]string{"HOME": home, "LATCH_SERVE_TOKEN": "tok"}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"no token", []string{"--serve", "127.0.0.1:0"}, map[string]string{"HOME": home}, "--serve needs a bearer token"},
		{"not an address", []string{"--serve", "8765"}, token, "--serve 8765: not HOST:PORT"},
		{"remote", []string{"--serve", "0.0.0.0:8765"}, token, "--serve 0.0.0.0:8765: not a loopback address"},
		{"in use", []string{"--serve", busy.Addr().String()}, token, "address already in use"},
		{"with -p", []string{"--serve", "127.0.0.1:0", "-p", "hi"}, token, "--serve ADDR goes with the chat"},
		{"with serve", []string{"--serve", "127.0.0.1:0", "serve", "--stdio"}, token, "--serve ADDR goes with the chat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := run(append([]string{"--config", cfg}, tc.args...), strings.NewReader(""), &out, &errb, envOf(tc.env))
			if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tc.want)
			}
			if strings.Contains(errb.String(), "tok\n") || strings.Contains(out.String(), "\x1b[?1049h") {
				t.Errorf("the token or a screen was written: %q %q", out.String(), errb.String())
			}
		})
	}
}
