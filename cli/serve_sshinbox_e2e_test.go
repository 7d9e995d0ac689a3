package cli

// End-to-end tests of serve.inbox_ssh: the built latch serve with the
// inbox over SSH, a call parked by the TypeScript SDK client, decided
// with OpenSSH's ssh in a real pseudo-terminal.

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"latch/mcp/mcptestutil"
)

// sshServe is latch serve --listen with the inbox over SSH.
type sshServe struct {
	url, sshAddr, hostKey string // the MCP URL, the SSH address, the host key's fingerprint
	mu                    sync.Mutex
	lines                 []string // its log so far
}

// log is latch serve's log so far.
func (s *sshServe) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// startServeSSH starts latch serve --listen 127.0.0.1:0 with the rig's
// config (which sets serve.inbox_ssh) and waits until it says where it
// serves MCP and SSH.
func startServeSSH(t *testing.T, r *promptRig, token string) *sshServe {
	t.Helper()
	cmd := exec.Command(r.bin, "--config", r.cfg, "serve", "--listen", "127.0.0.1:0")
	cmd.Env, cmd.Dir = append(r.env, "LATCH_SERVE_TOKEN="+token), r.cwd
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill() // this test's own child
			<-exited
		}
	})
	s := &sshServe{}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("latch serve: %s", sc.Text())
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
		}
		_ = cmd.Wait()
		close(exited)
	}()
	mcptestutil.WaitFor(t, time.Minute, "latch serve listening on HTTP and SSH", func() bool {
		select {
		case <-exited:
			t.Fatalf("latch serve exited:\n%s", s.log())
		default:
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, l := range s.lines {
			if u, ok := strings.CutPrefix(l, "latch serve: listening on "); ok {
				s.url = u
			}
			if rest, ok := strings.CutPrefix(l, "latch serve: inbox over SSH on "); ok {
				s.sshAddr, s.hostKey, _ = strings.Cut(rest, ", host key ")
			}
		}
		return s.url != "" && s.sshAddr != ""
	})
	return s
}

// sshKey makes a key pair with ssh-keygen in dir, and gives its private
// key's file and its public key's line.
func sshKey(t *testing.T, dir, name, comment string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", path).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return path, string(pub)
}

// sshArgs are OpenSSH's arguments to reach addr with key, checking the
// host key against knownHosts, nothing of the user's own config read.
func sshArgs(addr, key, knownHosts string, more ...string) []string {
	host, port, _ := strings.Cut(addr, ":")
	args := []string{"-F", "/dev/null", "-i", key, "-p", port, "-o", "IdentitiesOnly=yes", "-o", "BatchMode=yes",
		"-o", "StrictHostKeyChecking=yes", "-o", "UserKnownHostsFile=" + knownHosts, "-o", "LogLevel=ERROR"}
	return append(append(args, more...), "phone@"+host)
}

// A call parked through latch serve is decided from OpenSSH's ssh -tt
// with a listed key: the host key matches the fingerprint latch serve
// printed, the inbox shows the call, y then Enter approves it, the
// client's poll gets server-memory's result, the write ran once, and
// latch serve's log names the decider by the key's fingerprint and
// comment. An unlisted key, a command and a session with no terminal are
// refused.
func TestServeInboxOverSSH(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		t.Skip("OpenSSH's ssh is not installed")
	}
	const token = "ssh-inbox-token-for-the-test"
	keys := t.TempDir()
	key, pub := sshKey(t, keys, "phone", "phone@e2e")
	other, _ := sshKey(t, keys, "other", "other@e2e")
	authorized := filepath.Join(keys, "authorized_keys")
	if err := os.WriteFile(authorized, []byte(pub), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "2s", "inbox_ssh": map[string]any{"listen": "127.0.0.1:0", "authorized_keys": authorized}}}, true)
	srv := startServeSSH(t, r, token)

	// The host key is the one in the state folder, as printed.
	b, err := os.ReadFile(filepath.Join(r.state, "ssh_host_ed25519_key"))
	if err != nil {
		t.Fatal(err)
	}
	hk, err := ssh.ParsePrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	if fp := ssh.FingerprintSHA256(hk.PublicKey()); fp != srv.hostKey {
		t.Fatalf("latch serve printed host key %q; the state folder's is %s", srv.hostKey, fp)
	}
	knownHosts := filepath.Join(keys, "known_hosts")
	if err := os.WriteFile(knownHosts, []byte(knownhosts.Line([]string{knownhosts.Normalize(srv.sshAddr)}, hk.PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	httpPlan := map[string]any{"url": srv.url, "token": token}
	res := sdkClient(t, r, map[string]any{"http": httpPlan, "clientName": "claude-e2e", "calls": []any{createAlice}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	h := callHandle(t, res, 0)

	tm := startLatch(t, "ssh", ptyOptions{Rows: 30, Cols: 100, Env: r.env, Args: sshArgs(srv.sshAddr, key, knownHosts, "-tt")})
	tm.waitScreen(t, time.Minute, "the parked call over SSH", func(s string) bool {
		return strings.Contains(s, "1 call waiting") && strings.Contains(s, h.InvocationID) && strings.Contains(s, "claude-e2e")
	})
	if n := r.memCalls("create_entities"); n != 0 {
		t.Fatalf("the call ran before anyone approved it (%d times)", n)
	}
	tm.typeKeys("y")
	tm.waitScreen(t, time.Minute, "the step, past its pause", func(s string) bool { return strings.Contains(s, "enter approves it") })
	tm.typeKeys(keyEnter)
	tm.waitScreen(t, time.Minute, "the approval applied", func(s string) bool {
		return strings.Contains(unwrapped(s), "approved 1 of 1 call, by ssh:SHA256:") && strings.Contains(s, "0 calls waiting")
	})
	polled := sdkClient(t, r, awaitPlan(httpPlan, h.InvocationID))
	if text, isErr := callText(t, polled, 0); isErr || !strings.Contains(text, `"alice"`) {
		t.Errorf("the poll after the approval: %q", text)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d create_entities calls, want exactly 1", n)
	}
	fp := strings.TrimSpace(string(mustRun(t, "ssh-keygen", "-l", "-E", "sha256", "-f", key+".pub")))
	fp = strings.Fields(fp)[1]
	mcptestutil.WaitFor(t, time.Minute, "the decision logged with its decider", func() bool {
		return strings.Contains(srv.log(), h.InvocationID+" approved by ssh:"+fp+" phone@e2e")
	})
	tm.typeKeys("q")
	if st := tm.waitExit(time.Minute); st == nil || st.ExitCode() != 0 {
		t.Errorf("ssh after q: %v", st)
	}

	// Refused: a key not listed, a command, a session with no terminal.
	for _, c := range []struct {
		what string
		args []string
		says string
	}{
		{"an unlisted key", sshArgs(srv.sshAddr, other, knownHosts, "-T"), "Permission denied (publickey)"},
		{"a command", append(sshArgs(srv.sshAddr, key, knownHosts), "cat", "/etc/passwd"), "no commands here"},
		{"no terminal", sshArgs(srv.sshAddr, key, knownHosts, "-T"), "needs a terminal"},
	} {
		cmd := exec.Command("ssh", c.args...)
		cmd.Env = r.env
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), c.says) {
			t.Errorf("ssh with %s: %v, output %q; want it refused, saying %q", c.what, err, out, c.says)
		}
		if strings.Contains(string(out), "root:") {
			t.Errorf("ssh with %s ran a command: %q", c.what, out)
		}
	}
	mcptestutil.WaitFor(t, time.Minute, "the refusals logged", func() bool {
		l := srv.log()
		return strings.Contains(l, "is not in "+authorized) && strings.Contains(l, "refused a command (an exec request)") &&
			strings.Contains(l, "refused a session with no terminal")
	})
}

// mustRun runs a program and gives its output.
func mustRun(t *testing.T, name string, args ...string) []byte {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return out
}

// Under latch serve --stdio, stdout is the MCP stream: an SSH session
// of the inbox (a hostile terminal name, keys, quit) puts nothing on it;
// the client's initialize is answered with JSON lines alone.
func TestServeStdioInboxOverSSHKeepsStdoutClean(t *testing.T) {
	keys := t.TempDir()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(keys, "authorized_keys")
	if err := os.WriteFile(authorized, ssh.MarshalAuthorizedKey(signer.PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"inbox_ssh": map[string]any{"listen": "127.0.0.1:0", "authorized_keys": authorized}}}, false)
	cmd := exec.Command(r.bin, "--config", r.cfg, "serve", "--stdio")
	cmd.Env, cmd.Dir = r.env, r.cwd
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Logf("latch serve: %s", sc.Text())
			if rest, ok := strings.CutPrefix(sc.Text(), "latch serve: inbox over SSH on "); ok {
				a, _, _ := strings.Cut(rest, ",")
				addr <- a
			}
		}
	}()
	var out strings.Builder
	outDone := make(chan struct{})
	go func() {
		defer close(outDone)
		b, _ := io.ReadAll(stdout)
		out.Write(b)
	}()
	var sshAddr string
	select {
	case sshAddr = <-addr:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill() // this test's own child
		t.Fatal("latch serve --stdio did not say where the inbox's SSH listens")
	}
	c, err := ssh.Dial("tcp", sshAddr, &ssh.ClientConfig{User: "me", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RequestPty("\x1b]0;pwned\x07xterm-256color", 24, 80, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	in, _ := s.StdinPipe()
	screen, _ := s.StdoutPipe()
	if err := s.Shell(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var shown strings.Builder
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := screen.Read(b)
			mu.Lock()
			shown.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	mcptestutil.WaitFor(t, time.Minute, "the inbox over SSH", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(shown.String(), "0 calls waiting")
	})
	// Keys of every kind; "/" opens the filter, where q is text (and
	// Esc q is Alt+q): Ctrl+C quits from anywhere.
	_, _ = in.Write([]byte("jk/\x1b[A\x1b]0;x\x07\x1bq"))
	_, _ = in.Write([]byte("q\x03"))
	_ = s.Wait()
	_ = c.Close()
	_, _ = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`+"\n")
	_ = stdin.Close()
	select {
	case <-outDone:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill() // this test's own child
		t.Fatal("latch serve --stdio did not end when its stdin closed")
	}
	_ = cmd.Wait()
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) == 0 || !strings.Contains(lines[0], `"id":1`) {
		t.Errorf("stdout has no answer to initialize:\n%q", out.String())
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("stdout holds a line that is not JSON (the MCP stream is broken): %q", l)
		}
	}
}
