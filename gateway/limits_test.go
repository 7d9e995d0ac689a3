package gateway_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// A client with as many calls running as it may run gets an error result
// at once for one more, naming the limit; another client's calls run, and
// once the first client's calls end it may call again. A client is its
// session (before 2026-07-28: another session of the same name is another
// client) or, stateless, its name (another connection of the same name
// shares its budget).
func TestFloodingClientIsLimitedOthersKeepWorking(t *testing.T) {
	for _, era := range []struct {
		version  string
		sameName bool // a second connection named as the first is held back too
	}{{mcp.LATEST_PROTOCOL_VERSION, true}, {"2025-11-25", false}} {
		t.Run(era.version, func(t *testing.T) {
			up := newHoldServer()
			defer up.release()
			var log mcptestutil.SyncBuffer
			r := newRig(t, gateway.Options{Log: &log, Limits: gateway.Limits{Concurrent: 2}},
				session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
			flood, calm := r.connectAt(t, era.version, "flood", nil), r.connectAt(t, era.version, "calm", nil)
			twin := r.connectAt(t, era.version, "flood", nil)

			var held sync.WaitGroup
			for range 2 {
				held.Add(1)
				go func() {
					defer held.Done()
					if res, err := call(t, flood, "up__hold", nil); err != nil || res.IsError {
						t.Errorf("a held call: %v %+v", err, res)
					}
				}()
			}
			mcptestutil.WaitFor(t, 20*time.Second, "two held calls running", func() bool { return up.running.Load() == 2 })

			res, err := call(t, flood, "up__echo", map[string]any{"text": "one more"})
			if err != nil {
				t.Fatalf("the call over the limit: %v (want an error result)", err)
			}
			want := "too many calls at once from flood: at most 2 run together (serve.max_concurrent_per_client)"
			if !res.IsError || !strings.Contains(text(res), want) {
				t.Errorf("the call over the limit: isError %v, %q; want %q", res.IsError, text(res), want)
			}
			if res, err := call(t, calm, "up__echo", map[string]any{"text": "hi"}); err != nil || res.IsError || text(res) != "echo hi" {
				t.Errorf("the other client's call: %v %+v", err, res)
			}
			if res, err := call(t, twin, "up__echo", nil); err != nil || res.IsError != era.sameName {
				t.Errorf("a second connection named flood: %v, %q; want it held back: %v", err, text(res), era.sameName)
			}
			if !strings.Contains(log.String(), "latch serve: flood up__echo limited") {
				t.Errorf("the refused call is not logged:\n%s", log.String())
			}

			up.release()
			held.Wait()
			if res, err := call(t, flood, "up__echo", map[string]any{"text": "again"}); err != nil || res.IsError || text(res) != "echo again" {
				t.Errorf("once its calls ended, the client's call: %v %+v", err, res)
			}
		})
	}
}

// A client past its rate gets an error result saying when to call again;
// another client is not held back, and the first may call again once its
// budget has refilled (the gateway's clock moved on).
func TestClientOverRateIsLimitedOthersKeepWorking(t *testing.T) {
	up := newHoldServer()
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := newRig(t, gateway.Options{Limits: gateway.Limits{Rate: 1, Burst: 3}, Now: clock},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	flood, calm := r.connect(t, "flood", nil), r.connect(t, "calm", nil)
	for i := range 3 {
		if res, err := call(t, flood, "up__echo", nil); err != nil || res.IsError {
			t.Fatalf("call %d, within the burst: %v %+v", i+1, err, res)
		}
	}
	res, err := call(t, flood, "up__echo", nil)
	want := "too many calls from flood: at most 1 a second, 3 in a burst (serve.rate_per_client, serve.burst_per_client); call again in 1s"
	if err != nil || !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("the call past the burst: %v, %q; want an error result %q", err, text(res), want)
	}
	if res, err := call(t, calm, "up__echo", map[string]any{"text": "hi"}); err != nil || res.IsError {
		t.Errorf("the other client's call: %v %+v", err, res)
	}
	mu.Lock()
	now = now.Add(time.Second)
	mu.Unlock()
	if res, err := call(t, flood, "up__echo", nil); err != nil || res.IsError {
		t.Errorf("a second later: %v %+v", err, res)
	}
}

// Polls waiting for a person have their own cap: a client with all its
// call slots taken can still poll, and a poll over the cap is refused at
// once while the other waits (here until a person approves the call).
func TestPollsHaveTheirOwnCap(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := startRig(t, gateway.Options{Limits: gateway.Limits{Concurrent: 1, Polls: 1}, AwaitPoll: time.Minute}, true,
		session.Options{LogDir: t.TempDir(), Policy: permissions.Policy{Mode: permissions.Ask}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.connect(t, "poller", nil)
	parked, err := call(t, c, "up__echo", map[string]any{"text": "later"})
	if err != nil || parked.IsError || !strings.Contains(text(parked), "awaiting_approval") {
		t.Fatalf("the call to park: %v %+v", err, parked)
	}
	id, _ := parked.StructuredContent.(map[string]any)["invocation_id"].(string)
	r.sess.SetServerMode("up", permissions.Auto)
	go func() { _, _ = call(t, c, "up__hold", nil) }()
	mcptestutil.WaitFor(t, 20*time.Second, "the held call running", func() bool { return up.running.Load() == 1 })

	results := make(chan string, 2)
	for range 2 {
		go func() {
			res, err := call(t, c, gateway.AwaitTool, map[string]any{"invocation_id": id})
			if err != nil {
				results <- err.Error()
				return
			}
			results <- text(res)
		}()
	}
	first := <-results
	want := "too many latch_await_decision polls at once from poller: at most 1 wait together (serve.max_polls_per_client)"
	if !strings.Contains(first, want) {
		t.Errorf("the first poll to return: %q; want %q", first, want)
	}
	if err := r.sess.GatewayDecide(id, true, "a test", ""); err != nil {
		t.Fatal(err)
	}
	if second := <-results; second != "echo later" {
		t.Errorf("the poll that waited: %q; want the call's result once approved (the call slot taken does not stop it)", second)
	}
}

// Over stdio, as many calls run at once as the limits let run (mcp-go
// would otherwise run five and queue the rest), and one more is refused
// at once rather than queued.
func TestStdioRunsCallsUpToTheLimit(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := newGateway(t, gateway.Options{Limits: gateway.Limits{Concurrent: 7}}, true, session.Options{},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.stdioClient(t, "piped")
	for range 7 {
		go func() { _, _ = call(t, c, "up__hold", nil) }()
	}
	mcptestutil.WaitFor(t, 20*time.Second, "seven held calls running at once", func() bool { return up.running.Load() == 7 })
	res, err := call(t, c, "up__echo", nil)
	want := "too many calls at once from piped: at most 7 run together"
	if err != nil || !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("the eighth call: %v, %+v; want an error result %q", err, res, want)
	}
}

// With the default limits, a client calling one tool after another as fast
// as latch answers (here a call every millisecond, by the clock the
// limiter reads) is never refused: a script reading 5,000 things in a row
// is not a flood.
func TestDefaultLimitsLetCallsInARow(t *testing.T) {
	if testing.Short() {
		t.Skip("long (5,000 calls through the gateway): make test-e2e runs it")
	}
	up := newHoldServer()
	var mu sync.Mutex
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	r := newRig(t, gateway.Options{Now: clock}, session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.connect(t, "script", nil)
	for i := range 5000 {
		if res, err := call(t, c, "up__echo", nil); err != nil || res.IsError {
			t.Fatalf("call %d in a row, a millisecond apart: %v %q", i+1, err, text(res))
		}
		mu.Lock()
		now = now.Add(time.Millisecond)
		mu.Unlock()
	}
}
