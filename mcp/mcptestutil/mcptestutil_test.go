package mcptestutil_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

// lockedBuffer collects a child's stderr.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func initRequest() mcp.InitializeRequest {
	var req mcp.InitializeRequest
	req.Params.ClientInfo = mcp.Implementation{Name: "mcptestutil-test", Version: "0"}
	return req
}

func callTool(name string, args map[string]any) mcp.CallToolRequest {
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	return req
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		tc, ok := mcp.AsTextContent(c)
		if !ok {
			t.Fatalf("content %T is not text", c)
		}
		parts = append(parts, tc.Text)
	}
	return strings.Join(parts, "")
}

func toolNames(res *mcp.ListToolsResult) []string {
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

type conn struct {
	c      *client.Client
	stderr *lockedBuffer
}

// startStdio connects a plain mcp-go client, pinned to the last handshake
// protocol version, to a stdio server; it is closed at cleanup.
func startStdio(t *testing.T, init bool, env []string, cmd string, args ...string) conn {
	t.Helper()
	stderr := &lockedBuffer{}
	tr := transport.NewStdioWithOptions(cmd, env, args, transport.WithCommandStderrWriter(stderr))
	c := client.NewClient(tr, client.WithProtocolVersion(mcp.LATEST_LEGACY_PROTOCOL_VERSION))
	if err := c.Start(context.Background()); err != nil {
		t.Fatalf("start %s: %v", cmd, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if init {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if _, err := c.Initialize(ctx, initRequest()); err != nil {
			t.Fatalf("initialize %s: %v; stderr:\n%s", cmd, err, stderr)
		}
	}
	return conn{c, stderr}
}

func ctx5s(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestFakeMCPSmoke uses the plainest client: NewStdioMCPClient, Start,
// Initialize pinned to the handshake era.
func TestFakeMCPSmoke(t *testing.T) {
	bin := mcptestutil.BuildFakeMCP(t)
	if again := mcptestutil.BuildFakeMCP(t); again != bin {
		t.Fatalf("second build: %q, want the cached %q", again, bin)
	}
	c, err := client.NewStdioMCPClient(bin, []string{"FAKEMCP_TOKEN_ECHO=tok-123"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := ctx5s(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	req := initRequest()
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	res, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.ServerInfo.Name != "fakemcp" || res.ProtocolVersion != mcp.LATEST_LEGACY_PROTOCOL_VERSION {
		t.Fatalf("initialize: server %q protocol %q", res.ServerInfo.Name, res.ProtocolVersion)
	}

	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	names := toolNames(tools)
	slices.Sort(names)
	if want := []string{"add", "echo", "fail", "huge", "slow", "whoami"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v", names, want)
	}
	for _, tool := range tools.Tools {
		ro := tool.Annotations.ReadOnlyHint != nil && *tool.Annotations.ReadOnlyHint
		if ro != (tool.Name == "echo") {
			t.Errorf("tool %s: readOnlyHint %v", tool.Name, ro)
		}
	}

	for _, tc := range []struct {
		tool    string
		args    map[string]any
		want    string
		isError bool
	}{
		{"echo", map[string]any{"message": "hello"}, "hello", false},
		{"add", map[string]any{"a": 2, "b": 3.5}, "5.5", false},
		{"fail", nil, "it failed", true},
		{"whoami", nil, "tok-123", false},
	} {
		r, err := c.CallTool(ctx, callTool(tc.tool, tc.args))
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		if got := text(t, r); got != tc.want || r.IsError != tc.isError {
			t.Errorf("%s: %q isError=%v, want %q isError=%v", tc.tool, got, r.IsError, tc.want, tc.isError)
		}
	}
}

func TestFakeMCPCrashOnCall(t *testing.T) {
	s := startStdio(t, true, nil, mcptestutil.BuildFakeMCP(t), "-crash-on-call")
	ctx := ctx5s(t)
	if _, err := s.c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatalf("list before the crash: %v", err)
	}
	_, err := s.c.CallTool(ctx, callTool("echo", map[string]any{"message": "x"}))
	if !errors.Is(err, transport.ErrTransportClosed) {
		t.Fatalf("call: %v, want a transport error (transport closed)", err)
	}
	mcptestutil.WaitFor(t, 5*time.Second, "the crash message", func() bool {
		return strings.Contains(s.stderr.String(), "fatal: simulated crash on call")
	})
	var exitErr *exec.ExitError
	if err := s.c.Close(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 3 {
		t.Fatalf("close: %v, want exit status 3", err)
	}
}

func TestFakeMCPCrashAfter(t *testing.T) {
	s := startStdio(t, true, nil, mcptestutil.BuildFakeMCP(t), "-crash-after", "300ms")
	mcptestutil.WaitFor(t, 5*time.Second, "the crash message", func() bool {
		return strings.Contains(s.stderr.String(), "fatal: simulated crash\n")
	})
	// The read loop notices EOF asynchronously.
	mcptestutil.WaitFor(t, 5*time.Second, "calls to fail", func() bool {
		_, err := s.c.ListTools(ctx5s(t), mcp.ListToolsRequest{})
		return errors.Is(err, transport.ErrTransportClosed)
	})
}

func TestFakeMCPSlowProgressAndCancel(t *testing.T) {
	s := startStdio(t, true, nil, mcptestutil.BuildFakeMCP(t))
	var mu sync.Mutex
	var progress []float64
	s.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == string(mcp.MethodNotificationProgress) && n.Params.AdditionalFields["progressToken"] == "p1" {
			mu.Lock()
			progress = append(progress, n.Params.AdditionalFields["progress"].(float64))
			mu.Unlock()
		}
	})
	req := callTool("slow", map[string]any{"seconds": 0.55})
	req.Params.Meta = &mcp.Meta{ProgressToken: "p1"}
	res, err := s.c.CallTool(ctx5s(t), req)
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "slept 550ms" {
		t.Errorf("slow: %q", got)
	}
	mu.Lock()
	got := slices.Clone(progress)
	mu.Unlock()
	if len(got) < 4 || got[0] != 1 || got[3] != 4 {
		t.Errorf("progress %v, want 1, 2, 3, 4, …", got)
	}

	// The tool would sleep an hour, far beyond the test's bound: the call
	// returning in time is the deadline ending it.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := s.c.CallTool(ctx, callTool("slow", map[string]any{"seconds": 3600}))
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("cancelled call: %v", err)
		}
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatalf("the cancelled call still running after %s", mcptestutil.HangBound(0))
	}
	mcptestutil.WaitFor(t, 5*time.Second, `"cancelled" on stderr`, func() bool { return strings.Contains(s.stderr.String(), "cancelled\n") })
}

func TestFakeMCPHugeEnvAndStartDelay(t *testing.T) {
	t.Setenv("FAKEMCP_TEST_SENTINEL", "sentinel-4242")
	start := time.Now()
	s := startStdio(t, true, nil, mcptestutil.BuildFakeMCP(t),
		"-start-delay", "300ms", "-echo-env", "FAKEMCP_TEST_SENTINEL", "-stderr-flood", "20000")
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Errorf("initialize after %v, want ≥ 300ms (-start-delay)", d)
	}
	ctx := ctx5s(t)
	for _, n := range []int{0, 1, 64, 1000, 300_000} {
		res, err := s.c.CallTool(ctx, callTool("huge", map[string]any{"bytes": n}))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(text(t, res)); got != n {
			t.Errorf("huge %d: %d bytes", n, got)
		}
	}
	res, err := s.c.CallTool(ctx, callTool("env", nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); got != "sentinel-4242" {
		t.Errorf("env: %q", got)
	}
	// The flood is written before serving starts, so the answered initialize
	// shows that the client drained it all; the stderr mirror of mcp-go drops
	// chunks when it falls behind, so only look for the first lines.
	mcptestutil.WaitFor(t, 5*time.Second, "the stderr flood", func() bool { return strings.Contains(s.stderr.String(), "junk 00000000 ") })
}

func TestFakeMCPPaginationAndListChanged(t *testing.T) {
	s := startStdio(t, false, nil, mcptestutil.BuildFakeMCP(t),
		"-tools", "25", "-page-size", "10", "-list-changed-after", "500ms")
	changed := make(chan struct{}, 1)
	s.c.OnNotification(func(n mcp.JSONRPCNotification) {
		if n.Method == mcp.MethodNotificationToolsListChanged {
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	})
	ctx := ctx5s(t)
	if _, err := s.c.Initialize(ctx, initRequest()); err != nil {
		t.Fatal(err)
	}
	page, err := s.c.ListToolsByPage(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Tools) != 10 || page.NextCursor == "" {
		t.Fatalf("first page: %d tools, cursor %q", len(page.Tools), page.NextCursor)
	}
	all, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if names := toolNames(all); len(names) != 31 || !slices.Contains(names, "t24") || slices.Contains(names, "late") {
		t.Fatalf("all tools (%d): %v", len(names), names)
	}
	select {
	case <-changed:
	case <-ctx.Done():
		t.Fatal("no tools/list_changed")
	}
	all, err = s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if names := toolNames(all); !slices.Contains(names, "late") {
		t.Fatalf("after list_changed: %v", names)
	}
}

func TestFakeMCPHangHandshake(t *testing.T) {
	s := startStdio(t, false, nil, mcptestutil.BuildFakeMCP(t), "-hang-handshake")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.c.Initialize(ctx, initRequest()); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("initialize: %v, want a deadline error", err)
	}
}

// TestFakeMCPModern checks the fake with mcp-go's default: server/discover
// and the stateless 2026-07-28 protocol.
func TestFakeMCPModern(t *testing.T) {
	stderr := &lockedBuffer{}
	tr := transport.NewStdioWithOptions(mcptestutil.BuildFakeMCP(t), nil, nil, transport.WithCommandStderrWriter(stderr))
	c := client.NewClient(tr)
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := ctx5s(t)
	res, err := c.Initialize(ctx, initRequest())
	if err != nil {
		t.Fatal(err)
	}
	if res.ProtocolVersion != mcp.LATEST_PROTOCOL_VERSION {
		t.Fatalf("protocol %q, want %q", res.ProtocolVersion, mcp.LATEST_PROTOCOL_VERSION)
	}
	r, err := c.CallTool(ctx, callTool("echo", map[string]any{"message": "modern"}))
	if err != nil || text(t, r) != "modern" {
		t.Fatalf("echo: %v %v", r, err)
	}
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := c.CallTool(cctx, callTool("slow", map[string]any{"seconds": 10})); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled call: %v", err)
	}
	mcptestutil.WaitFor(t, 5*time.Second, `"cancelled" on stderr`, func() bool { return strings.Contains(stderr.String(), "cancelled\n") })
}

func TestNPMEverythingStdio(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	s := startStdio(t, true, nil, bin)
	ctx := ctx5s(t)
	tools, err := s.c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if names := toolNames(tools); !slices.Contains(names, "echo") {
		t.Fatalf("tools %v: no echo", names)
	}
	res, err := s.c.CallTool(ctx, callTool("echo", map[string]any{"message": "hi"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res); !strings.Contains(got, "hi") {
		t.Errorf("echo: %q", got)
	}
}

func TestNPMEverythingHTTP(t *testing.T) {
	for _, tc := range []struct{ mode, path string }{{"streamableHttp", "/mcp"}, {"sse", "/sse"}} {
		t.Run(tc.mode, func(t *testing.T) {
			t.Parallel()
			base := mcptestutil.StartNPMHTTP(t, "mcp-server-everything", tc.mode)
			var c *client.Client
			var err error
			if tc.mode == "sse" {
				c, err = client.NewSSEMCPClient(base + tc.path)
			} else {
				c, err = client.NewStreamableHttpClient(base + tc.path)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			ctx := ctx5s(t)
			req := initRequest()
			req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
			if _, err := c.Initialize(ctx, req); err != nil {
				t.Fatal(err)
			}
			tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if names := toolNames(tools); !slices.Contains(names, "echo") {
				t.Fatalf("tools %v: no echo", names)
			}
		})
	}
}

// recorder is a testing.TB whose Fatalf and Skipf record the message and
// unwind with a panic that call() recovers.
type recorder struct {
	testing.TB
	fatal, skip string
}

type stopped struct{}

func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func (r *recorder) Skipf(format string, args ...any) {
	r.skip = fmt.Sprintf(format, args...)
	panic(stopped{})
}

func (r *recorder) call(f func(testing.TB)) {
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
		}
	}()
	f(r)
}

func TestNPMBinMissing(t *testing.T) {
	missing := func(tb testing.TB) { mcptestutil.NPMBin(tb, "no-such-bin-xyz") }

	t.Setenv("CI", "")
	r := &recorder{TB: t}
	r.call(missing)
	if !strings.HasPrefix(r.skip, "SKIPPING: npm test servers not installed") ||
		!strings.Contains(r.skip, "`make test` or `cd testdata/npm && npm ci`") || r.fatal != "" {
		t.Errorf("without CI: skip %q, fatal %q", r.skip, r.fatal)
	}

	t.Setenv("CI", "true")
	r = &recorder{TB: t}
	r.call(missing)
	if !strings.Contains(r.fatal, "run `make test`") || r.skip != "" {
		t.Errorf("CI=true: skip %q, fatal %q", r.skip, r.fatal)
	}

	t.Setenv("PATH", t.TempDir())
	r = &recorder{TB: t}
	r.call(missing)
	if !strings.Contains(r.fatal, "node is not on PATH") {
		t.Errorf("no node, CI=true: fatal %q", r.fatal)
	}
}

func TestWaitHTTPAndFreePort(t *testing.T) {
	port := mcptestutil.FreePort(t)
	if port <= 0 || port > 65535 {
		t.Fatalf("port %d", port)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/"
	r := &recorder{TB: t}
	r.call(func(tb testing.TB) { mcptestutil.WaitHTTP(tb, url, 200*time.Millisecond) })
	if !strings.Contains(r.fatal, "nothing answered") {
		t.Fatalf("WaitHTTP on a closed port: fatal %q", r.fatal)
	}

	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Skipf("port %d taken meanwhile: %v", port, err)
	}
	srv := &http.Server{Handler: http.NotFoundHandler()}
	go srv.Serve(l)
	defer srv.Close()
	mcptestutil.WaitHTTP(t, url, 2*time.Second) // a 404 counts
}
