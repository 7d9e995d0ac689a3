package mcp

// Tests against real third-party MCP servers (the pinned npm packages in
// testdata/npm/package.json, installed by `make test`), driven through the
// Manager exactly as the chat drives it. mcptestutil.NPMBin skips them,
// loudly, when the servers are not installed, and fails them under CI=true.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
)

// peerTransports are the three ways server-everything can be reached.
var peerTransports = []string{TransportStdio, TransportHTTP, TransportSSE}

// peerEverything returns a config for server-everything named "every" over
// transport, starting the HTTP server (on a free port, killed at cleanup)
// when the transport needs one.
func peerEverything(t testing.TB, bin, transport string, timeout time.Duration) ServerConfig {
	t.Helper()
	cfg := ServerConfig{Name: "every", Transport: transport, Timeout: timeout}
	switch transport {
	case TransportStdio:
		cfg.Command, cfg.Args = bin, []string{"stdio"}
	case TransportHTTP:
		cfg.URL = mcptestutil.StartNPMHTTP(t, bin, "streamableHttp") + "/mcp"
	case TransportSSE:
		cfg.URL = mcptestutil.StartNPMHTTP(t, bin, "sse") + "/sse"
	default:
		t.Fatalf("unknown transport %q", transport)
	}
	return cfg
}

// peerConnect makes a manager for cfgs, starts it, and waits until every
// server is connected and its tools are named; it returns the manager, its
// events and how long that took. The manager is closed at cleanup.
//
// The Manager moves a server to "connected" a moment before it names the
// server's tools (connect renames after releasing the server's lock; the
// StatusChanged event comes after both), so a poller of Status must wait
// for the names too.
func peerConnect(t *testing.T, cfgs ...ServerConfig) (*Manager, *events, time.Duration) {
	t.Helper()
	return peerConnectOpts(t, Options{}, cfgs...)
}

// peerConnectOpts is peerConnect with options (OnEvent is set here).
func peerConnectOpts(t *testing.T, o Options, cfgs ...ServerConfig) (*Manager, *events, time.Duration) {
	t.Helper()
	ev := newEvents()
	o.OnEvent = ev.add
	m := New(cfgs, o)
	t.Cleanup(m.CloseAll)
	start := time.Now()
	m.Start()
	for _, c := range cfgs {
		st := waitState(t, m, c.Name, StateConnected, 15*time.Second)
		if st.ProtocolVersion != mcpgo.LATEST_LEGACY_PROTOCOL_VERSION {
			t.Errorf("%s: protocol %q, want %q", c.Name, st.ProtocolVersion, mcpgo.LATEST_LEGACY_PROTOCOL_VERSION)
		}
		named := func() bool { tools, _ := m.ServerTools(c.Name); return st.Tools > 0 && len(tools) == st.Tools }
		if !mcptestutil.Eventually(mcptestutil.HangBound(5*time.Second), named) {
			tools, _ := m.ServerTools(c.Name)
			t.Fatalf("%s: connected with %d tools, but %d are named", c.Name, st.Tools, len(tools))
		}
	}
	return m, ev, time.Since(start)
}

// peerEvents returns the events so far.
func peerEvents(e *events) []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.all...)
}

// peerProgress returns the Progress events of callID.
func peerProgress(ev *events, callID string) []Progress {
	var out []Progress
	for _, e := range peerEvents(ev) {
		if p, ok := e.(Progress); ok && p.CallID == callID {
			out = append(out, p)
		}
	}
	return out
}

// peerToolsChanged returns the ToolsChanged events.
func peerToolsChanged(ev *events) []ToolsChanged {
	var out []ToolsChanged
	for _, e := range peerEvents(ev) {
		if tc, ok := e.(ToolsChanged); ok {
			out = append(out, tc)
		}
	}
	return out
}

// peerCall calls a tool and fails the test on an error or an isError result.
func peerCall(t *testing.T, m *Manager, name string, args map[string]any, callID string) *Result {
	t.Helper()
	res, err := m.Call(context.Background(), name, args, callID)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: isError result: %s", name, res.Text)
	}
	return res
}

// TestPeerEverything runs server-everything over stdio, streamable HTTP and
// legacy SSE: connect, tool list, calls, progress, and its
// tools/list_changed.
func TestPeerEverything(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range peerTransports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			cfg := peerEverything(t, bin, transport, 10*time.Second)
			// How fast (no 5 s stall on a server/discover probe waited
			// out) is BenchmarkConnectEverything's, and
			// BenchmarkConnectEra's on the fake server.
			m, ev, took := peerConnect(t, cfg)
			t.Logf("PEER-TIMING connect server-everything over %s: %v", transport, took.Round(time.Millisecond))

			st, _ := m.Status("every")
			if st.ServerName != "mcp-servers/everything" {
				t.Errorf("server name %q", st.ServerName)
			}
			tools, err := m.ServerTools("every")
			if err != nil {
				t.Fatal(err)
			}
			if st.Tools != len(tools) {
				t.Errorf("status counts %d tools, ServerTools has %d", st.Tools, len(tools))
			}
			for _, name := range []string{"every__echo", "every__get-sum", "every__trigger-long-running-operation"} {
				tool, ok := m.Lookup(name)
				if !ok {
					t.Fatalf("%s not listed; tools: %v", name, tools)
				}
				if tool.Server != "every" || tool.Original != strings.TrimPrefix(name, "every__") {
					t.Errorf("%s: %+v", name, tool)
				}
			}

			msg := "hello from latch over " + transport
			if res := peerCall(t, m, "every__echo", map[string]any{"message": msg}, ""); !strings.Contains(res.Text, msg) {
				t.Errorf("echo: %q, want it to contain %q", res.Text, msg)
			}
			if res := peerCall(t, m, "every__get-sum", map[string]any{"a": 2, "b": 3}, ""); !strings.Contains(res.Text, "5") {
				t.Errorf("get-sum 2+3: %q", res.Text)
			}

			callID := "peer-progress-" + transport
			start := time.Now()
			res := peerCall(t, m, "every__trigger-long-running-operation", map[string]any{"duration": 2, "steps": 4}, callID)
			t.Logf("long-running operation over %s: %v: %q", transport, time.Since(start).Round(time.Millisecond), res.Text)
			if transport == TransportHTTP {
				// Best effort over streamable HTTP (docs/ARCHITECTURE.md, "mcp-go"):
				// report, don't assert.
				t.Logf("progress events over streamable HTTP: %d of 4", len(peerProgress(ev, callID)))
			} else {
				// On stdio and SSE the notifications come in order before
				// the result on one stream, so they are all in by now.
				progress := peerProgress(ev, callID)
				if len(progress) < 2 {
					t.Fatalf("%d progress events for %s over %s, want at least 2; events: %v", len(progress), callID, transport, peerEvents(ev))
				}
				for i, p := range progress {
					if p.Server != "every" || p.Total != 4 || (i > 0 && p.Progress <= progress[i-1].Progress) {
						t.Errorf("progress %d: %+v (all: %+v)", i, p, progress)
					}
				}
				t.Logf("progress events over %s: %d of 4", transport, len(progress))
			}

			peerEverythingListChanged(t, m, ev, cfg)
		})
	}
}

// peerEverythingListChanged checks server-everything's tools/list_changed
// on cfg's transport.
//
// The server sends exactly one per session: while handling
// notifications/initialized it registers its capability-dependent tools
// (dist/tools/index.js registerConditionalTools). For a client like ours,
// which declares no roots, sampling or elicitation, that adds only
// simulate-research-query (it needs no capability to be listed), and
// registering it sends tools/list_changed. No tool of the server changes
// the tool list later (toggle-subscriber-updates sends resources/updated;
// gzip-file-as-resource changes the resource list).
//
// That notification comes before the answer to the tools/list that ends
// our connect, so the Manager's first list already has the new tool and
// there is nothing left to refresh; on stdio and SSE it reaches the
// client's notification handler (while the connect is still running, so
// the Manager, rightly, doesn't refresh). Over streamable HTTP it goes to
// the standalone GET stream, which mcp-go opens in the background once
// initialize is answered: it arrives when that GET wins the race with our
// notifications/initialized POST, and is lost otherwise (the server keeps
// it for replay, but mcp-go's first GET has no Last-Event-ID). So the
// server gives the Manager nothing to refresh on any transport; this
// checks what really happens, and then the refresh that a list_changed
// triggers, over the live connection.
func peerEverythingListChanged(t *testing.T, m *Manager, ev *events, cfg ServerConfig) {
	t.Helper()
	// 1. The tool whose registration the list_changed announces is in the
	// Manager's first list.
	if _, ok := m.Lookup("every__simulate-research-query"); !ok {
		t.Errorf("every__simulate-research-query (registered after initialized) missing from the first tool list")
	}
	t.Logf("ToolsChanged events during connect over %s: %d", cfg.Transport, len(peerToolsChanged(ev)))

	// 2. The server does send it: watch the notification handler of a
	// second connection built by dial, the Manager's own connect.
	var mu sync.Mutex
	var notes []time.Duration
	start := time.Now()
	c, _, raw, err := dial(cfg, "", func(n mcpgo.JSONRPCNotification) {
		if n.Method == mcpgo.MethodNotificationToolsListChanged {
			mu.Lock()
			notes = append(notes, time.Since(start))
			mu.Unlock()
		}
	}, func(string) {})
	if err != nil {
		t.Fatalf("second connection: %v", err)
	}
	dialed := time.Since(start)
	got := func() []time.Duration { mu.Lock(); defer mu.Unlock(); return append([]time.Duration(nil), notes...) }
	if cfg.Transport == TransportHTTP {
		mcptestutil.Eventually(time.Second, func() bool { return len(got()) > 0 })
		t.Logf("tools/list_changed over streamable HTTP: %v (best effort: it races mcp-go's GET stream); connect done at %v", got(), dialed.Round(time.Millisecond))
	} else {
		if !mcptestutil.Eventually(mcptestutil.HangBound(3*time.Second), func() bool { return len(got()) > 0 }) {
			t.Errorf("no tools/list_changed from server-everything over %s", cfg.Transport)
		} else {
			t.Logf("tools/list_changed over %s at %v; connect done at %v", cfg.Transport, got()[0].Round(time.Millisecond), dialed.Round(time.Millisecond))
		}
	}
	// The Manager's connection offers roots (not on SSE), so the server
	// adds get-roots-list; dial's offers none.
	managed := slices.DeleteFunc(peerToolNames(m), func(n string) bool { return n == "every__get-roots-list" })
	if len(raw) != len(managed) {
		t.Errorf("second connection lists %d tools, the Manager %d (besides get-roots-list)", len(raw), len(managed))
	}
	c.close()

	// 3. The refresh a list_changed starts (Manager.notification runs it
	// in a goroutine) works over this transport: a real tools/list on the
	// live connection, the same tools, and so no ToolsChanged event (one
	// is sent only when the tool set changed).
	s := m.servers["every"]
	s.mu.Lock()
	gen := s.gen
	s.mu.Unlock()
	before := peerToolNames(m)
	changes := len(peerToolsChanged(ev))
	m.refresh(s, gen)
	if logsContain(t, m, "every", "refreshing the tool list failed") {
		t.Fatalf("refresh over %s failed; log: %v", cfg.Transport, s.log.tail(5))
	}
	if more := peerToolsChanged(ev)[changes:]; len(more) != 0 {
		t.Errorf("refresh of an unchanged tool list over %s sent %+v", cfg.Transport, more)
	}
	if after := peerToolNames(m); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("tools after refresh %v, before %v", after, before)
	}
	if st, _ := m.Status("every"); st.State != StateConnected || st.Tools != len(before) {
		t.Errorf("status after refresh: %+v", st)
	}
	peerCall(t, m, "every__echo", map[string]any{"message": "after refresh"}, "")
}

func peerToolNames(m *Manager) []string {
	var names []string
	for _, tool := range m.Tools() {
		names = append(names, tool.Name)
	}
	return names
}

// TestPeerEverythingUnservedCapability: what server-everything can't do
// with a client like ours fails clearly and in time, never hangs; its tool
// that must run as a task runs as one.
func TestPeerEverythingUnservedCapability(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	const timeout = 3 * time.Second
	for _, transport := range peerTransports {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			m, ev, _ := peerConnect(t, peerEverything(t, bin, transport, timeout))

			// trigger-sampling-request needs the client's sampling
			// capability. The server lists it only to clients that
			// declare it.
			if _, ok := m.Lookup("every__trigger-sampling-request"); ok {
				// Never hangs: it ends (by the request timeout at the
				// latest) within the hang bound.
				ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
				res, err := m.Call(ctx, "every__trigger-sampling-request", map[string]any{"prompt": "hi", "maxTokens": 5}, "")
				cancel()
				t.Logf("trigger-sampling-request over %s: err=%v res=%+v", transport, err, res)
				if errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("trigger-sampling-request still waiting after %v, timeout %v", mcptestutil.HangBound(0), timeout)
				}
				if err == nil && (res == nil || !res.IsError) {
					t.Errorf("trigger-sampling-request succeeded though latch serves no sampling: %+v", res)
				}
			} else {
				// Refused before anything is sent: ErrUnknownTool, not the
				// request timeout.
				_, err := m.Call(context.Background(), "every__trigger-sampling-request", map[string]any{"prompt": "hi"}, "")
				if !errors.Is(err, ErrUnknownTool) {
					t.Errorf("unlisted trigger-sampling-request: %v, want %v", err, ErrUnknownTool)
				}
				t.Logf("trigger-sampling-request is not offered over %s (latch declares no sampling): %v", transport, err)
			}

			// simulate-research-query must be called as a task
			// (taskSupport "required"): latch does, polls its stages'
			// status messages, and gets the report (about 4 s, each
			// request well within the timeout).
			res, err := m.Call(context.Background(), "every__simulate-research-query", map[string]any{"topic": "peers"}, "peer-task")
			if err != nil || res.IsError || !strings.Contains(res.Text, "Research Report: peers") {
				t.Fatalf("simulate-research-query as a task: %v, %+v", err, res)
			}
			var stages []string
			for _, s := range taskStatuses(ev, "peer-task") {
				stages = append(stages, s.Status+": "+s.Message)
			}
			// The stages shown are those a poll caught: under load one
			// may pass between two polls, so no one stage is required.
			if len(stages) < 3 || !strings.HasPrefix(stages[len(stages)-1], "completed") ||
				len(slices.Compact(slices.Clone(stages))) < 3 {
				t.Errorf("task statuses over %s: %q", transport, stages)
			}
			t.Logf("simulate-research-query over %s, as a task: %q", transport, stages)

			// A call that outlives the per-request timeout fails with
			// ErrTimeout on time, and the connection stays usable.
			start := time.Now()
			_, err = m.Call(context.Background(), "every__trigger-long-running-operation", map[string]any{"duration": 30, "steps": 3}, "peer-timeout")
			took := time.Since(start)
			if !errors.Is(err, ErrTimeout) {
				t.Errorf("30 s operation with a %v timeout: %v, want %v", timeout, err, ErrTimeout)
			}
			// The operation would take 30 s: ErrTimeout says the timeout
			// ended it, and it cannot have come before the timeout (a
			// busy machine only makes it later, so no upper bound).
			if took < timeout-100*time.Millisecond {
				t.Errorf("timed-out call returned after %v, before the timeout %v", took, timeout)
			}
			t.Logf("timeout over %s after %v: %v", transport, took.Round(time.Millisecond), err)
			if res := peerCall(t, m, "every__echo", map[string]any{"message": "still here"}, ""); !strings.Contains(res.Text, "still here") {
				t.Errorf("echo after a timeout: %q", res.Text)
			}
		})
	}
}

// TestPeerFilesystem runs server-filesystem on a temp dir over stdio.
func TestPeerFilesystem(t *testing.T) {
	t.Parallel()
	bin := mcptestutil.NPMBin(t, "mcp-server-filesystem")
	// The server compares real paths; resolve a symlinked TMPDIR.
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const content = "latch was here\nline two\n"
	file := filepath.Join(dir, "note-for-latch.txt")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	outsideDir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(outsideDir, "secret.txt")
	if err := os.WriteFile(outside, []byte("outside-secret-1234"), 0o644); err != nil {
		t.Fatal(err)
	}

	// server-filesystem takes the client's roots over its arguments: latch
	// must say dir (the working directory is the root otherwise).
	m, _, took := peerConnectOpts(t, Options{Roots: []string{dir}}, ServerConfig{Name: "fs", Command: bin, Args: []string{dir}, Timeout: 10 * time.Second})
	t.Logf("PEER-TIMING connect server-filesystem over stdio: %v", took.Round(time.Millisecond))

	if res := peerCall(t, m, "fs__list_directory", map[string]any{"path": dir}, ""); !strings.Contains(res.Text, "note-for-latch.txt") {
		t.Errorf("list_directory: %q", res.Text)
	}
	if res := peerCall(t, m, "fs__read_text_file", map[string]any{"path": file}, ""); !strings.Contains(res.Text, content) {
		t.Errorf("read_text_file: %q, want %q", res.Text, content)
	}

	for _, tc := range []struct{ tool, path string }{{"fs__read_text_file", outside}, {"fs__list_directory", outsideDir}} {
		res, err := m.Call(context.Background(), tc.tool, map[string]any{"path": tc.path}, "")
		if err != nil {
			t.Fatalf("%s outside the allowed dir: %v, want an isError result", tc.tool, err)
		}
		if !res.IsError || strings.Contains(res.Text, "outside-secret-1234") {
			t.Errorf("%s %s: isError=%v %q, want an isError result without the content", tc.tool, tc.path, res.IsError, res.Text)
		}
	}

	for _, tc := range []struct {
		name                  string
		readOnly, destructive bool
	}{
		{"fs__read_text_file", true, false},
		{"fs__list_directory", true, false},
		{"fs__write_file", false, true},
		{"fs__create_directory", false, false},
	} {
		tool, ok := m.Lookup(tc.name)
		if !ok {
			t.Errorf("%s not listed", tc.name)
			continue
		}
		if tool.ReadOnly != tc.readOnly || tool.Destructive != tc.destructive {
			t.Errorf("%s: ReadOnly=%v Destructive=%v, want %v %v", tc.name, tool.ReadOnly, tool.Destructive, tc.readOnly, tc.destructive)
		}
	}
}

// TestPeerMemory runs server-memory over stdio with its file in a temp dir:
// the file on disk shows the write.
func TestPeerMemory(t *testing.T) {
	t.Parallel()
	bin := mcptestutil.NPMBin(t, "mcp-server-memory")
	path := filepath.Join(t.TempDir(), "memory.jsonl")
	m, _, took := peerConnect(t, ServerConfig{Name: "mem", Command: bin, Env: map[string]string{"MEMORY_FILE_PATH": path}, Timeout: 10 * time.Second})
	t.Logf("PEER-TIMING connect server-memory over stdio: %v", took.Round(time.Millisecond))

	const entity = "LatchPeerTestEntity"
	if data, err := os.ReadFile(path); err == nil && bytes.Contains(data, []byte(entity)) {
		t.Fatalf("memory file has %s before the write", entity)
	}
	peerCall(t, m, "mem__create_entities", map[string]any{"entities": []any{
		map[string]any{"name": entity, "entityType": "test", "observations": []any{"made by TestPeerMemory"}},
	}}, "")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("memory file after create_entities: %v", err)
	}
	if !bytes.Contains(data, []byte(entity)) {
		t.Errorf("memory file lacks %s:\n%s", entity, data)
	}
	res := peerCall(t, m, "mem__read_graph", map[string]any{}, "")
	if !strings.Contains(res.Text, entity) || !strings.Contains(res.Text, "made by TestPeerMemory") {
		t.Errorf("read_graph: %q", res.Text)
	}
	if tool, ok := m.Lookup("mem__read_graph"); !ok || !tool.ReadOnly {
		t.Errorf("mem__read_graph: %+v %v, want read-only", tool, ok)
	}
	if tool, ok := m.Lookup("mem__create_entities"); !ok || tool.ReadOnly {
		t.Errorf("mem__create_entities: %+v %v, want not read-only", tool, ok)
	}
}

// TestPeerCloseAllLeavesNoProcess: after CloseAll no process of the stdio
// servers is left, nor of their process groups.
func TestPeerCloseAllLeavesNoProcess(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the servers' processes through /proc")
	}
	t.Parallel()
	bins := map[string]string{
		"every": mcptestutil.NPMBin(t, "mcp-server-everything"),
		"fs":    mcptestutil.NPMBin(t, "mcp-server-filesystem"),
		"mem":   mcptestutil.NPMBin(t, "mcp-server-memory"),
	}
	// A mark in the environment tells these servers from those other
	// tests run at the same time.
	markValue := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	mark := "LATCH_PEER_CLOSE_MARK=" + markValue
	env := map[string]string{"LATCH_PEER_CLOSE_MARK": markValue}
	memEnv := map[string]string{"MEMORY_FILE_PATH": filepath.Join(t.TempDir(), "m.jsonl")}
	for k, v := range env {
		memEnv[k] = v
	}
	cfgs := []ServerConfig{
		{Name: "every", Command: bins["every"], Args: []string{"stdio"}, Env: env},
		{Name: "fs", Command: bins["fs"], Args: []string{t.TempDir()}, Env: env},
		{Name: "mem", Command: bins["mem"], Env: memEnv},
	}
	m, _, _ := peerConnect(t, cfgs...)

	pids := map[string]int{}
	for _, p := range peerChildren(t, mark) {
		for name, bin := range bins {
			if strings.Contains(p.cmdline, filepath.Base(bin)) {
				if old, dup := pids[name]; dup {
					t.Fatalf("two processes of %s: %d and %d", name, old, p.pid)
				}
				pids[name] = p.pid
			}
		}
	}
	for name := range bins {
		if pids[name] == 0 {
			t.Fatalf("no child process found for %s; children with the mark: %+v", name, peerChildren(t, mark))
		}
	}
	for name, pid := range pids {
		// Each server leads its own process group (so that its children
		// can be killed with it): check the group lookup sees it.
		if group := peerGroup(t, pid); len(group) == 0 {
			t.Fatalf("%s (pid %d): no process in its group %d", name, pid, pid)
		}
	}
	t.Logf("server pids: %v", pids)

	start := time.Now()
	m.CloseAll()
	t.Logf("CloseAll took %v", time.Since(start).Round(time.Millisecond))
	for name, pid := range pids {
		if mcptestutil.ProcessAlive(pid) {
			t.Errorf("%s (pid %d) alive after CloseAll", name, pid)
		}
		if left := peerGroup(t, pid); len(left) > 0 {
			t.Errorf("%s: processes %v of its group alive after CloseAll", name, left)
		}
		if st, _ := m.Status(name); st.State != StateClosed {
			t.Errorf("%s: %s after CloseAll", name, st.State)
		}
	}
	if left := peerChildren(t, mark); len(left) > 0 {
		t.Errorf("children left after CloseAll: %+v", left)
	}
	if tools := m.Tools(); len(tools) != 0 {
		t.Errorf("%d tools after CloseAll", len(tools))
	}
}

type peerProc struct {
	pid     int
	cmdline string
}

// peerProcs reads every process's stat: pid, ppid, pgid and state.
func peerProcs(t *testing.T) map[int][3]int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][3]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// "pid (comm) S ppid pgid …"; comm may hold spaces and parens.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(data[i+1:]))
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgid, _ := strconv.Atoi(f[2])
		out[pid] = [3]int{pid, ppid, pgid}
	}
	return out
}

// peerChildren lists the live children of this test process whose
// environment holds mark.
func peerChildren(t *testing.T, mark string) []peerProc {
	t.Helper()
	var out []peerProc
	for pid, p := range peerProcs(t) {
		if p[1] != os.Getpid() {
			continue
		}
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(append(append([]byte{0}, environ...), 0), []byte("\x00"+mark+"\x00")) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, peerProc{pid, strings.ReplaceAll(string(cmdline), "\x00", " ")})
	}
	return out
}

// peerGroup lists the live processes of process group pgid.
func peerGroup(t *testing.T, pgid int) []int {
	t.Helper()
	var out []int
	for pid, p := range peerProcs(t) {
		if p[2] == pgid {
			out = append(out, pid)
		}
	}
	return out
}
