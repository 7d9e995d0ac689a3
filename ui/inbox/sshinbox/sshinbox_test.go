package sshinbox

import (
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/ui/inbox"
)

// A listed key sees the waiting call, approves it (y, then Enter past
// the step's pause), and the call runs once; the gateway's log records
// the decider as the key's fingerprint and comment; q ends the session
// with status 0. The screen is drawn for the session's terminal (256
// colours for xterm-256color), not the gateway's.
func TestSSHListedKeyDecidesAndIsRecorded(t *testing.T) {
	key := newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), nil)
	id := r.g.park("claude", "from the phone")
	tm := openTerm(t, r.mustDial(key), "xterm-256color", 100, 30)
	tm.waitText("the parked call", "1 call waiting", "notes__write_note", "from the phone", "claude")
	if r.g.ran("from the phone") != 0 {
		t.Fatal("the call ran before anyone approved it")
	}
	tm.keys("y")
	tm.waitText("the step, past its pause", "enter approves it")
	tm.keys("\r")
	by := "ssh:" + ssh.FingerprintSHA256(key.PublicKey()) + " alice@phone"
	tm.waitText("the approval applied", "approved 1 of 1 call, by "+by)
	mcptestutil.WaitFor(t, wait, "the approved call runs", func() bool { return r.g.ran("from the phone") == 1 })
	calls, err := session.ParkedCallsOf(r.g.dir, r.g.sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 1 || calls[0].CallID != id || calls[0].By != by || calls[0].Decision != "approved" {
		t.Errorf("the session log records %+v; want %s approved by %q", calls, id, by)
	}
	r.log.waitLog(t, "the connection logged", by+" connected from 127.0.0.1:")
	tm.mu.Lock()
	raw := tm.out.String()
	tm.mu.Unlock()
	if !strings.Contains(raw, "\x1b[38;5;") {
		t.Errorf("the screen for xterm-256color has no 256-colour styles:\n%q", raw)
	}
	tm.keys("q")
	tm.waitClosed("after q")
	if err := tm.s.Wait(); err != nil {
		t.Errorf("the session after q: %v, want exit status 0", err)
	}
}

// A key not listed, a password, keyboard-interactive and no
// authentication are each refused before any session opens, and the
// log says why (the unlisted key by its fingerprint).
func TestSSHRefusesAllButListedKeys(t *testing.T) {
	key, other := newKey(t), newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), nil)
	for name, auth := range map[string][]ssh.AuthMethod{
		"an unlisted key": {ssh.PublicKeys(other)},
		"a password":      {ssh.Password("hunter2")},
		"keyboard-interactive": {ssh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
			return []string{"hunter2"}, nil
		})},
		"no authentication": nil,
	} {
		c, err := r.dial(auth...)
		if err == nil {
			_ = c.Close()
			t.Errorf("%s was let in", name)
			continue
		}
		if !strings.Contains(err.Error(), "unable to authenticate") {
			t.Errorf("%s: %v, want a refused authentication", name, err)
		}
	}
	r.log.waitLog(t, "the unlisted key logged", "refused 127.0.0.1:", "key "+ssh.FingerprintSHA256(other.PublicKey())+" is not in "+r.keys)
	r.log.waitLog(t, "the password logged", "refused 127.0.0.1:", "public keys only")
	if strings.Contains(r.log.all(), "hunter2") {
		t.Errorf("the log holds the password:\n%s", r.log.all())
	}
}

// A listed key gets the inbox and nothing else: a command (exec), a
// subsystem (sftp), a shell with no terminal, a TCP connection through
// the server (direct-tcpip), a forwarded port (tcpip-forward), agent
// and X11 forwarding are each refused, and logged.
func TestSSHRefusesAllButTheInbox(t *testing.T) {
	key := newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), func(o *Options) { o.MaxSessions = 32 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	session := func() (*ssh.Client, *ssh.Session) {
		c := r.mustDial(key)
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		return c, s
	}
	if _, s := session(); s.Run("cat /etc/passwd") == nil {
		t.Error("an exec request ran")
	}
	if _, s := session(); s.RequestSubsystem("sftp") == nil {
		t.Error("the sftp subsystem was granted")
	}
	if _, s := session(); s.Shell() == nil {
		t.Error("a shell with no terminal was granted")
	}
	c, _ := session()
	if conn, err := c.Dial("tcp", ln.Addr().String()); err == nil {
		_ = conn.Close()
		t.Error("a direct-tcpip channel was opened")
	}
	if l, err := c.Listen("tcp", "127.0.0.1:0"); err == nil {
		_ = l.Close()
		t.Error("a tcpip-forward was granted")
	}
	c, s := session()
	if err := agent.RequestAgentForwarding(s); err == nil {
		t.Error("agent forwarding was granted")
	}
	if ok, err := s.SendRequest("x11-req", true, ssh.Marshal(struct {
		Single        bool
		Proto, Cookie string
		Screen        uint32
	}{false, "MIT-MAGIC-COOKIE-1", "00", 0})); ok || err != nil {
		t.Errorf("x11-req: granted %v, error %v", ok, err)
	}
	if ch, _, err := c.OpenChannel("auth-agent@openssh.com", nil); err == nil {
		_ = ch.Close()
		t.Error("an agent channel was opened")
	}
	for _, what := range []string{"a command (an exec request)", "a command (an subsystem request)", "a session with no terminal",
		"a direct-tcpip channel", "port forwarding", "agent forwarding", "X11 forwarding"} {
		r.log.waitLog(t, what+" logged", "refused "+what+" to ssh:")
	}
	// The key refused all that still gets the inbox.
	tm := openTerm(t, r.mustDial(key), "xterm", 80, 24)
	tm.waitText("the inbox", "0 calls waiting")
}

// The authorized keys file is read on each connection: a key taken out
// of it is refused at once; a file others can read is refused, the log
// saying the chmod.
func TestSSHKeysFileReadEachConnection(t *testing.T) {
	key, other := newKey(t), newKey(t)
	r := startRig(t, authorized(key, "alice@phone")+authorized(other, "bob"), nil)
	_ = r.mustDial(key)
	if err := os.WriteFile(r.keys, []byte(authorized(other, "bob")), 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := r.dial(ssh.PublicKeys(key)); err == nil {
		_ = c.Close()
		t.Fatal("a key removed from the file was still let in")
	}
	_ = r.mustDial(other)
	if err := os.Chmod(r.keys, 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := r.dial(ssh.PublicKeys(other)); err == nil {
		_ = c.Close()
		t.Fatal("a listed key was let in from a file others can read")
	}
	r.log.waitLog(t, "the mode refused", "can be read or written by others (mode 0644): chmod 600 "+r.keys)
	if err := os.WriteFile(r.keys, []byte(`command="/bin/sh" `+authorized(other, "bob")), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(r.keys, 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := r.dial(ssh.PublicKeys(other)); err == nil {
		_ = c.Close()
		t.Fatal("a key with options latch does not honour was let in")
	}
	r.log.waitLog(t, "the options said", "carry options, which latch does not honour")
}

// The host key is made once (0600) in the state folder and kept; one
// others can read is refused, saying the chmod.
func TestSSHHostKeyMadeOnceAndPrivate(t *testing.T) {
	dir := t.TempDir()
	a, err := HostKey(dir)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(dir + "/" + HostKeyFile)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host key file: %v, mode %v; want 0600", err, fi.Mode())
	}
	b, err := HostKey(dir)
	if err != nil || Fingerprint(a) != Fingerprint(b) {
		t.Fatalf("the host key again: %v, %s then %s; want the same key", err, Fingerprint(a), Fingerprint(b))
	}
	if a.PublicKey().Type() != ssh.KeyAlgoED25519 {
		t.Errorf("the host key is %s, want ed25519", a.PublicKey().Type())
	}
	if err := os.Chmod(dir+"/"+HostKeyFile, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := HostKey(dir); err == nil || !strings.Contains(err.Error(), "chmod 600 "+dir+"/"+HostKeyFile) {
		t.Errorf("a host key others can read: %v, want refused with the chmod", err)
	}
}

// A fault in one SSH screen (in a command Bubble Tea runs, or in the
// drawing) is logged and closes that session alone: nothing reaches the
// process's stdout (under latch serve --stdio, the MCP stream), and the
// next session is served.
func TestSSHFaultClosesOnlyThatSession(t *testing.T) {
	var inSource, inView atomic.Bool
	key := newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), func(o *Options) {
		var mu sync.Mutex
		w := inbox.Watch(o.Inbox.Dir)
		o.Inbox.Source = func() ([]inbox.Call, error) {
			if inSource.Load() {
				panic("a fault in the source")
			}
			mu.Lock()
			defer mu.Unlock()
			return w()
		}
		args := o.Inbox.Args
		o.Inbox.Args = func(p session.ParkedCall, full bool) ([]string, int) {
			if inView.Load() {
				panic("a fault in the view \x1b]0;pwned\x07")
			}
			return args(p, full)
		}
	})
	stdout := captureStdout(t)
	r.g.park("claude", "still served")
	for _, fault := range []*atomic.Bool{&inSource, &inView} {
		fault.Store(true)
		tm := openTerm(t, r.mustDial(key), "xterm", 80, 24)
		tm.waitClosed("after the fault")
		fault.Store(false)
	}
	r.log.waitLog(t, "the source's fault logged", "screen stopped on a fault", "a fault in the source")
	line := r.log.waitLog(t, "the view's fault logged", "screen stopped on a fault", "a fault in the view")
	if strings.Contains(line, "\x1b") {
		t.Errorf("the fault's line holds an escape: %q", line)
	}
	tm := openTerm(t, r.mustDial(key), "xterm", 80, 24)
	tm.waitText("the inbox after the faults", "1 call waiting", "still served")
	if out := stdout(); out != "" {
		t.Errorf("the faults wrote to the process's stdout:\n%q", out)
	}
}

// captureStdout points os.Stdout at a pipe until the test ends; the
// function returns what was written to it so far, stdout restored.
func captureStdout(t *testing.T) func() string {
	t.Helper()
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = wr
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(rd)
		got <- string(b)
	}()
	var once sync.Once
	var out string
	read := func() string {
		once.Do(func() {
			os.Stdout = old
			_ = wr.Close()
			out = <-got
		})
		return out
	}
	t.Cleanup(func() { read() })
	return read
}

// A hostile terminal name (escapes, a huge name) and hostile sizes (0×0,
// 100000×100000, 1×1) never break the screen nor reach the log.
func TestSSHHostileTerminal(t *testing.T) {
	key := newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), nil)
	for _, name := range []string{"\x1b]0;pwned\x07xterm", strings.Repeat("x", 100000)} {
		r.g.park("claude", "hostile")
		tm := openTerm(t, r.mustDial(key), name, 0, 0)
		tm.waitText("the inbox at 0×0", "hostile")
		for _, sz := range [][2]int{{100000, 100000}, {1, 1}, {100, 30}} {
			if err := tm.s.WindowChange(sz[1], sz[0]); err != nil {
				t.Fatal(err)
			}
		}
		// The screen still works: y, then Enter, approves the call.
		tm.keys("y")
		tm.waitText("the step after the sizes", "enter approves it")
		tm.keys("\r")
		tm.waitText("the call approved", "approved 1 of 1 call")
		tm.keys("q")
		tm.waitClosed("after q")
	}
	if strings.Contains(r.log.all(), "pwned") || strings.Contains(r.log.all(), "xxxxxxxx") {
		t.Errorf("the terminal's name reached the log:\n%s", r.log.all())
	}
}

// A connection with no key for Idle is closed; past MaxSessions a new
// connection is closed at once, and both are logged.
func TestSSHIdleAndSessionLimit(t *testing.T) {
	key := newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), func(o *Options) { o.MaxSessions = 1 })
	first := openTerm(t, r.mustDial(key), "xterm", 80, 24)
	first.waitText("the inbox", "0 calls waiting")
	refusedPastOneSession(t, r, key)
	first.keys("q")
	first.waitClosed("after q")

	r2 := startRig(t, authorized(key, "alice@phone"), func(o *Options) { o.Idle = 200 * 1e6 })
	idle := openTerm(t, r2.mustDial(key), "xterm", 80, 24)
	idle.waitClosed("with no key")
	r2.log.waitLog(t, "the idle close logged", "with no key")
}

// A keys file of another user is refused (run as root, which can give it
// away); a comment's escapes are made inert and long ones cut before
// they name a decider.
func TestSSHKeysFileOwnerAndComments(t *testing.T) {
	key := newKey(t)
	path := t.TempDir() + "/keys"
	line := authorized(key, "\x1b]0;pwned\x07"+strings.Repeat("c", 200))
	if err := os.WriteFile(path, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	keys, _, err := readKeys(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if strings.ContainsAny(k.comment, "\x1b\x07") || len([]rune(k.comment)) > maxComment {
			t.Errorf("the comment as recorded: %q", k.comment)
		}
	}
	if os.Getuid() != 0 {
		t.Skip("giving the file to another user needs root")
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readKeys(path); err == nil || !strings.Contains(err.Error(), "belongs to another user (uid 65534)") {
		t.Errorf("a keys file of another user: %v", err)
	}
}

// Gateways started at once on one state folder all serve the same host
// key: none reads a key half written by another, none fails because
// another made the file first, and no temporary file is left behind.
func TestSSHHostKeyMadeOnceByGatewaysStartedAtOnce(t *testing.T) {
	for round := range 20 {
		dir := t.TempDir()
		const n = 8
		fps := make([]string, n)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				s, err := HostKey(dir)
				if err == nil {
					fps[i] = Fingerprint(s)
				}
				errs[i] = err
			})
		}
		close(start)
		wg.Wait()
		for i := range n {
			if errs[i] != nil {
				t.Fatalf("round %d, gateway %d: %v", round, i, errs[i])
			}
			if fps[i] != fps[0] {
				t.Fatalf("round %d: gateway %d serves %s, gateway 0 %s: want one key", round, i, fps[i], fps[0])
			}
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("round %d: the state folder holds %v, want the host key alone", round, names)
		}
	}
}

// Strangers who open connections and say nothing take no session's
// slot: with one session allowed and 40 silent connections open, a listed
// key still gets the inbox, and the silent ones beyond the bound on
// handshakes are closed, the longest waiting first, and logged.
func TestSSHSilentConnectionsDoNotLockThePersonOut(t *testing.T) {
	key := newKey(t)
	r := startRig(t, authorized(key, "alice@phone"), func(o *Options) { o.MaxSessions = 1 })
	var silent []net.Conn
	for range 40 {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		silent = append(silent, c)
	}
	r.log.waitLog(t, "the oldest silent ones closed", "the longest of 16 still in their handshake")
	_ = silent[0].SetReadDeadline(time.Now().Add(wait))
	if b, err := io.ReadAll(silent[0]); err != nil {
		t.Errorf("the first silent connection: %v after %q, want closed by latch", err, b)
	}
	term := openTerm(t, r.mustDial(key), "xterm", 80, 24)
	term.waitText("the inbox", "0 calls waiting")
	refusedPastOneSession(t, r, key)
}

// refusedPastOneSession fails unless a second connection of key, with
// one session open and MaxSessions 1, is refused and the refusal logged.
func refusedPastOneSession(t *testing.T, r *rig, key ssh.Signer) {
	t.Helper()
	if c, err := r.dial(ssh.PublicKeys(key)); err == nil {
		_ = c.Close()
		t.Error("a second session was let in past MaxSessions 1")
	}
	r.log.waitLog(t, "the session limit logged", "1 sessions already")
}

// A log writer that stalls while it logs a silent connection closed
// (the gateway's log on a full pipe) stalls no other connection: a
// person's handshake already under way finishes and shows the inbox.
func TestSSHSlowLogStallsNoHandshake(t *testing.T) {
	key := newKey(t)
	entered, release := make(chan struct{}), make(chan struct{})
	r := startRig(t, authorized(key, "alice@phone"), func(o *Options) {
		inner := o.Log
		var once sync.Once
		o.Log = func(kind, text string, fields map[string]any) {
			if fields["refused"] == "too many handshakes" {
				stalled := false
				once.Do(func() { stalled = true })
				if stalled {
					close(entered)
					<-release
				}
			}
			inner(kind, text, fields)
		}
	})
	t.Cleanup(func() { close(release) })
	dial := func() net.Conn {
		c, err := net.Dial("tcp", r.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	dial() // the oldest, closed when the 17th comes
	person := dial()
	for range maxHandshakes - 1 {
		dial()
	}
	select {
	case <-entered:
	case <-time.After(mcptestutil.HangBound(wait)):
		t.Fatal("the oldest silent connection was not closed and logged")
	}
	// Bounded, so that a stall fails the test (and lets the log go)
	// rather than hangs it.
	_ = person.SetDeadline(time.Now().Add(mcptestutil.HangBound(wait)))
	sc, chans, reqs, err := ssh.NewClientConn(person, r.addr, &ssh.ClientConfig{User: "me",
		Auth: []ssh.AuthMethod{ssh.PublicKeys(key)}, HostKeyCallback: ssh.FixedHostKey(r.host), Timeout: wait})
	if err != nil {
		t.Fatalf("a listed key's handshake, while the log stalls: %v", err)
	}
	c := ssh.NewClient(sc, chans, reqs)
	t.Cleanup(func() { _ = c.Close() })
	opened := make(chan error, 1)
	go func() {
		s, err := c.NewSession()
		if err == nil {
			_ = s.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatalf("the person's session, while the log stalls: %v", err)
		}
	case <-time.After(mcptestutil.HangBound(wait)):
		t.Fatal("the person's session did not open while the log of another connection stalled")
	}
}
