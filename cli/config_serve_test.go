package cli

import (
	"os"
	"strings"
	"testing"

	"latch/config"
)

func TestServeTokenNeverInErrors(t *testing.T) {
	s := &settings{cfg: &config.Config{Serve: config.ServeConfig{TokenEnv: "MY_TOKEN"}}, getenv: envOf(map[string]string{})}
	if _, err := serveToken(s); err == nil || !strings.Contains(err.Error(), "$MY_TOKEN is not set") {
		t.Errorf("unset token_env: %v", err)
	}
	s.getenv = envOf(map[string]string{"MY_TOKEN": " s3cret \n", "LATCH_SERVE_TOKEN": "other"})
	if tok, err := serveToken(s); err != nil || tok != "s3cret" {
		t.Errorf("token_env: %q, %v; want the variable's value, trimmed", tok, err)
	}
	s.cfg.Serve = config.ServeConfig{}
	if tok, _ := serveToken(s); tok != "other" {
		t.Errorf("without serve.token_*: %q, want $LATCH_SERVE_TOKEN", tok)
	}
}

// serve.inbox_ssh is checked before latch serve starts anything: a
// remote address without allow_remote, a keys file others can read, are
// refused saying what to do; a good one listens, with the host key made
// in the state folder.
func TestPrepareSSHInbox(t *testing.T) {
	dir := t.TempDir()
	keys := dir + "/keys"
	if err := os.WriteFile(keys, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := &settings{stateDir: dir + "/state", getenv: envOf(map[string]string{}),
		cfg: &config.Config{Serve: config.ServeConfig{InboxSSH: &config.InboxSSH{Listen: "0.0.0.0:0", AuthorizedKeys: keys}}}}
	var stderr strings.Builder
	if _, err := prepareSSHInbox(s, false, &stderr); err == nil || !strings.Contains(err.Error(), "serve.allow_remote: true") {
		t.Errorf("a remote address without allow_remote: %v", err)
	}
	s.cfg.Serve.InboxSSH.Listen = "127.0.0.1:0"
	if _, err := prepareSSHInbox(s, false, &stderr); err == nil || !strings.Contains(err.Error(), "chmod 600 "+keys) {
		t.Errorf("a keys file others can read: %v", err)
	}
	if err := os.Chmod(keys, 0o600); err != nil {
		t.Fatal(err)
	}
	x, err := prepareSSHInbox(s, false, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	// A second gateway on the config finds the address in use: it says
	// so and serves on without it.
	s.cfg.Serve.InboxSSH.Listen = x.ln.Addr().String()
	if y, err := prepareSSHInbox(s, false, &stderr); y != nil || err != nil || !strings.Contains(stderr.String(), "is in use: this gateway does not serve the inbox over SSH") {
		t.Errorf("the address in use: %v, %v, stderr %q", y, err, stderr.String())
	}
	_ = x.ln.Close()
	if !strings.Contains(stderr.String(), "lists no key yet") {
		t.Errorf("an empty keys file: stderr %q, want it said", stderr.String())
	}
	if fi, err := os.Stat(dir + "/state/ssh_host_ed25519_key"); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the host key: %v, %v; want it made 0600 in the state folder", err, fi)
	}
}
