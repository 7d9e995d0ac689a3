package sshinbox

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"golang.org/x/crypto/ssh"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/ui"
	"latch/ui/inbox"
)

// wait bounds what a test waits for.
const wait = time.Minute

// gateway is a real session in approve mode, as latch serve runs it: its
// calls park in its log in a state folder, and it applies the decisions
// dropped in its inbox.
type gateway struct {
	t    testing.TB
	dir  string
	sess *session.Session
	mu   sync.Mutex
	runs map[string]int
}

func newGateway(t testing.TB) *gateway {
	t.Helper()
	g := &gateway{t: t, dir: t.TempDir(), runs: map[string]int{}}
	srv := mcpserver.NewMCPServer("notes", "1.0", mcpserver.WithToolCapabilities(true))
	srv.AddTool(mcpgo.NewTool("write_note", mcpgo.WithDescription("Write a note."), mcpgo.WithString("text", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			g.mu.Lock()
			g.runs[req.GetString("text", "")]++
			g.mu.Unlock()
			return mcpgo.NewToolResultText("saved"), nil
		})
	ol := ollamatest.New(ollamatest.Model{Name: "tiny", Size: 1_000_000, ParameterSize: "10M", QuantizationLevel: "F16"})
	t.Cleanup(ol.Close)
	u, _ := url.Parse(ol.URL)
	g.sess = session.New(session.Options{Model: "tiny", Client: ol.Client(), Host: ol.Host(), Raw: session.RawOllama{URL: u, HTTP: ol.HTTPClient()},
		LogDir: g.dir, NonInteractive: true, Policy: permissions.Policy{Mode: permissions.Approve},
		Servers: []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(g.sess.Close)
	g.sess.StartServers()
	mcptestutil.WaitFor(t, wait, "the notes server's tools", func() bool {
		tools, err := g.sess.Tools("")
		return err == nil && len(tools) > 0
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); g.sess.WatchInbox(ctx, 20*time.Millisecond, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	return g
}

// park has client call write_note with text; it parks.
func (g *gateway) park(client, text string) string {
	g.t.Helper()
	out := g.sess.GatewayCall(context.Background(), session.GatewayCall{Client: client, Name: "notes__write_note",
		Arguments: map[string]any{"text": text}})
	if out.Decision != session.GatewayParked {
		g.t.Fatalf("the call did not park: %+v", out)
	}
	return out.ID
}

func (g *gateway) ran(text string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[text]
}

// logLines is the gateway log the SSH inbox writes.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(kind, text string, _ map[string]any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, kind+": "+text)
}

func (l *logLines) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// waitLog waits for a log line holding all of want.
func (l *logLines) waitLog(t testing.TB, what string, want ...string) string {
	t.Helper()
	var found string
	mcptestutil.WaitFor(t, wait, what, func() bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, line := range l.lines {
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(line, w)
			}
			if ok {
				found = line
				return true
			}
		}
		return false
	})
	return found
}

// rig is an SSH inbox on a gateway's state folder.
type rig struct {
	t      testing.TB
	g      *gateway
	addr   string
	keys   string // the authorized keys file
	log    *logLines
	host   ssh.PublicKey
	cancel context.CancelFunc
}

// newKey is a new ed25519 key pair's signer.
func newKey(t testing.TB) ssh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// authorized is an authorized_keys line for k with comment.
func authorized(k ssh.Signer, comment string) string {
	return strings.TrimSpace(string(ssh.MarshalAuthorizedKey(k.PublicKey()))) + " " + comment + "\n"
}

// startRig serves the inbox of a new gateway over SSH on a loopback port,
// letting in the keys lines lists; change sets more options.
func startRig(t testing.TB, lines string, change func(*Options)) *rig {
	t.Helper()
	g := newGateway(t)
	r := &rig{t: t, g: g, keys: filepath.Join(t.TempDir(), "authorized_keys"), log: &logLines{}}
	if err := os.WriteFile(r.keys, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	hk, err := HostKey(g.dir)
	if err != nil {
		t.Fatal(err)
	}
	r.host = hk.PublicKey()
	o := Options{AuthorizedKeys: r.keys, HostKey: hk, Log: r.log.log,
		Inbox: inbox.Options{Dir: g.dir,
			Args: func(p session.ParkedCall, full bool) ([]string, int) {
				return ui.ArgLines(p.Arguments, ui.ArgView{Full: full})
			},
			Line: func(p session.ParkedCall) string { return ui.ArgLine(p.Arguments, ui.ArgView{}) }}}
	if change != nil {
		change(&o)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r.addr = ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return r
}

// dial connects with auth; the host key must be the rig's.
func (r *rig) dial(auth ...ssh.AuthMethod) (*ssh.Client, error) {
	return ssh.Dial("tcp", r.addr, &ssh.ClientConfig{User: "me", Auth: auth, HostKeyCallback: ssh.FixedHostKey(r.host), Timeout: wait})
}

// mustDial connects with key.
func (r *rig) mustDial(key ssh.Signer) *ssh.Client {
	r.t.Helper()
	c, err := r.dial(ssh.PublicKeys(key))
	if err != nil {
		r.t.Fatalf("a listed key was refused: %v\nlog:\n%s", err, r.log.all())
	}
	r.t.Cleanup(func() { _ = c.Close() })
	return c
}

// term is an SSH session showing the inbox, its output kept.
type term struct {
	t    testing.TB
	s    *ssh.Session
	in   interface{ Write([]byte) (int, error) }
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
}

// openTerm asks for a pty named name of cols×rows and the shell.
func openTerm(t testing.TB, c *ssh.Client, name string, cols, rows int) *term {
	t.Helper()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, s: s, done: make(chan struct{})}
	if err := s.RequestPty(name, rows, cols, ssh.TerminalModes{}); err != nil {
		t.Fatalf("pty-req refused: %v", err)
	}
	in, err := s.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	tm.in = in
	out, err := s.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(tm.done)
		b := make([]byte, 4096)
		for {
			n, err := out.Read(b)
			tm.mu.Lock()
			tm.out.Write(b[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	if err := s.Shell(); err != nil {
		t.Fatalf("shell refused: %v", err)
	}
	return tm
}

// text is all the session has shown, its escapes taken out.
func (tm *term) text() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return ansi.Strip(tm.out.String())
}

// waitText waits until what the session showed holds all of want.
func (tm *term) waitText(what string, want ...string) {
	tm.t.Helper()
	mcptestutil.WaitFor(tm.t, wait, what, func() bool {
		s := tm.text()
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

func (tm *term) keys(s string) {
	tm.t.Helper()
	if _, err := tm.in.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// waitClosed waits until the server closed the session.
func (tm *term) waitClosed(what string) {
	tm.t.Helper()
	select {
	case <-tm.done:
	case <-time.After(mcptestutil.HangBound(wait)):
		tm.t.Fatalf("%s: the session was not closed:\n%s", what, tm.text())
	}
}
