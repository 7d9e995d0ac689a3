package gateway_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// A client parking call after call of 4 MiB each is refused once its
// waiting calls hold its quota of bytes (serve.park_max_bytes_per_client,
// at its default): the refusal names the limit, nothing of a refused call
// reaches the session log, which grows by at most the quota, not by the
// 256 MiB the 32 calls would write. Another client parks within its own
// quota, and once a person decides one of the first client's calls it
// may park again.
func TestParkQuotaBoundsTheLogOfOneClient(t *testing.T) {
	if testing.Short() {
		t.Skip("long (floods one client's parked calls into the session log): make test-e2e runs it")
	}
	up := newHoldServer()
	defer up.release()
	dir := t.TempDir()
	var log mcptestutil.SyncBuffer
	r := startRig(t, gateway.Options{Log: &log}, true,
		session.Options{LogDir: dir, Policy: permissions.Policy{Mode: permissions.Approve}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	flood := r.connectAt(t, "2025-11-25", "flood", nil)
	calm := r.connectAt(t, "2025-11-25", "calm", nil)
	logFile := filepath.Join(dir, r.sess.ID()+".jsonl")
	before := fileSize(t, logFile)

	big := strings.Repeat("x", 4<<20)
	var parked []string
	refused := 0
	for i := range 32 {
		res, err := call(t, flood, "up__echo", map[string]any{"text": big})
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		if id := invocationID(res); id != "" {
			parked = append(parked, id)
			continue
		}
		refused++
		want := "too many bytes waiting for approval from flood: its waiting calls may hold at most 33554432 bytes (serve.park_max_bytes_per_client)"
		if !res.IsError || !strings.Contains(text(res), want) {
			t.Fatalf("call %d: isError %v, %.200q; want %q", i+1, res.IsError, text(res), want)
		}
	}
	grown := fileSize(t, logFile) - before
	t.Logf("32 calls of 4 MiB: %d parked, %d refused; the log grew by %d bytes", len(parked), refused, grown)
	if len(parked) == 0 || refused == 0 {
		t.Fatalf("%d parked, %d refused: want the quota to park some and refuse the rest", len(parked), refused)
	}
	if grown > gateway.DefaultLimits.ParkBytes {
		t.Errorf("the log grew by %d bytes, more than the quota of %d", grown, gateway.DefaultLimits.ParkBytes)
	}
	if n := len(r.sess.Approvals()); n != len(parked) {
		t.Errorf("%d calls wait for a person; want the %d parked", n, len(parked))
	}
	if !strings.Contains(log.String(), "flood up__echo limited") {
		t.Errorf("the gateway's log does not have the refused calls:\n%.2000s", log.String())
	}

	if res, err := call(t, calm, "up__echo", map[string]any{"text": big}); err != nil || invocationID(res) == "" {
		t.Errorf("another client's call: %v %.200v; want it parked within its own quota", err, res)
	}
	if err := r.sess.GatewayDecide(parked[0], false, "tester", "too big"); err != nil {
		t.Fatal(err)
	}
	if res, err := call(t, flood, "up__echo", map[string]any{"text": big}); err != nil || invocationID(res) == "" {
		t.Errorf("once a person decided one: %v %.200v; want the client's call parked", err, res)
	}
}

// The count of one client's waiting calls (serve.park_max_calls_per_client)
// and of all clients' (serve.park_max_calls) bound small calls as the
// bytes bound big ones, each refusal naming its limit.
func TestParkQuotaCountsCalls(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := startRig(t, gateway.Options{Limits: gateway.Limits{ParkCalls: 2, ParkCallsTotal: 3}}, true,
		session.Options{LogDir: t.TempDir(), Policy: permissions.Policy{Mode: permissions.Approve}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	a := r.connectAt(t, "2025-11-25", "a", nil)
	b := r.connectAt(t, "2025-11-25", "b", nil)
	// twin names itself as a: its quota is its session's, not its name's.
	twin := r.connectAt(t, "2025-11-25", "a", nil)
	for i, s := range []struct {
		c    *client.Client
		want string
	}{
		{a, ""}, {a, ""},
		{a, "too many calls waiting for approval from a: at most 2 wait at once (serve.park_max_calls_per_client)"},
		{twin, ""},
		{b, "too many calls waiting for approval: at most 3 wait at once, from all clients (serve.park_max_calls)"},
	} {
		res, err := call(t, s.c, "up__echo", map[string]any{"text": "hi"})
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got := invocationID(res); (got != "") != (s.want == "") || !strings.Contains(text(res), s.want) {
			t.Errorf("step %d: %q; want %q", i+1, text(res), s.want)
		}
	}
}

// invocationID is the invocation id of an awaiting result, or "".
func invocationID(res *mcp.CallToolResult) string {
	if res == nil || res.IsError {
		return ""
	}
	m, _ := res.StructuredContent.(map[string]any)
	id, _ := m["invocation_id"].(string)
	return id
}

// fileSize is the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// The bytes all clients' waiting calls put in the session log
// (serve.park_max_bytes) bound them together: a third client, within its
// own quota, is refused once the calls of the first two hold the room
// (a call of 10,000 bytes takes about 22 KB of the log: it is written as
// the call and as the parked call),
// the refusal naming the limit, and nothing of its call reaches the log;
// once a person decides one of the others, it parks.
func TestParkQuotaBytesOfAllClients(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	dir := t.TempDir()
	r := startRig(t, gateway.Options{Limits: gateway.Limits{ParkBytes: 1 << 20, ParkBytesTotal: 50_000}}, true,
		session.Options{LogDir: dir, Policy: permissions.Policy{Mode: permissions.Approve}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	logFile := filepath.Join(dir, r.sess.ID()+".jsonl")
	var parked []string
	for _, name := range []string{"a", "b"} {
		c := r.connectAt(t, "2025-11-25", name, nil)
		res, err := call(t, c, "up__echo", map[string]any{"text": strings.Repeat(name, 10_000)})
		if err != nil || invocationID(res) == "" {
			t.Fatalf("%s's call of 10,000 bytes: %v %.200v; want it parked", name, err, res)
		}
		parked = append(parked, invocationID(res))
	}
	third := r.connectAt(t, "2025-11-25", "c", nil)
	big := strings.Repeat("c", 10_000)
	res, err := call(t, third, "up__echo", map[string]any{"text": big})
	if err != nil {
		t.Fatal(err)
	}
	want := "too many bytes waiting for approval: the waiting calls of all clients may hold at most 50000 bytes (serve.park_max_bytes)"
	if invocationID(res) != "" || !res.IsError || !strings.Contains(text(res), want) {
		t.Fatalf("c's call past all clients' bytes: isError %v, %.300q; want %q", res.IsError, text(res), want)
	}
	if b, err := os.ReadFile(logFile); err != nil || strings.Contains(string(b), big) {
		t.Errorf("the session log holds the refused call (%v)", err)
	}
	if err := r.sess.GatewayDecide(parked[0], false, "tester", "not now"); err != nil {
		t.Fatal(err)
	}
	if res, err := call(t, third, "up__echo", map[string]any{"text": big}); err != nil || invocationID(res) == "" {
		t.Errorf("c's call once a person decided one: %v %.200v; want it parked", err, res)
	}
}
