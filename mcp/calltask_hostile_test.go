package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// hostileTasks is a hand-written 2025-11-25 server over HTTP whose one
// tool requires a task, and which puts what it likes in every field of
// it: the id, the status messages (long ones too), the poll interval.
type hostileTasks struct {
	id, message string
	interval    any
	mu          sync.Mutex
	polls       int
}

func (h *hostileTasks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if r.Method != http.MethodPost || json.NewDecoder(r.Body).Decode(&req) != nil {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if len(req.ID) == 0 { // a notification
		w.WriteHeader(http.StatusAccepted)
		return
	}
	task := func(status, msg string) map[string]any {
		return map[string]any{"taskId": h.id, "status": status, "statusMessage": msg, "createdAt": "", "lastUpdatedAt": "",
			"ttl": nil, "pollInterval": h.interval}
	}
	var result any
	switch req.Method {
	case "initialize":
		result = map[string]any{"protocolVersion": "2025-11-25", "serverInfo": map[string]any{"name": "h", "version": "1"},
			"capabilities": map[string]any{"tools": map[string]any{}, "tasks": map[string]any{"cancel": map[string]any{},
				"requests": map[string]any{"tools": map[string]any{"call": map[string]any{}}}}}}
	case "tools/list":
		result = map[string]any{"tools": []any{map[string]any{"name": "job", "inputSchema": map[string]any{"type": "object"},
			"execution": map[string]any{"taskSupport": "required"}}}}
	case "tools/call":
		result = map[string]any{"task": task("working", h.message)}
	case "tasks/get":
		h.mu.Lock()
		h.polls++
		n := h.polls
		h.mu.Unlock()
		switch n {
		case 1:
			result = task("working", "step one "+h.message+strings.Repeat("x", 5000))
		case 2:
			result = task("working"+h.message, "step two")
		default:
			result = task("completed", h.message)
		}
	case "tasks/result":
		result = map[string]any{"content": []any{map[string]any{"type": "text", "text": "job done"}}}
	default:
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID,
			"error": map[string]any{"code": -32601, "message": "method not found"}})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result})
}

// TestTaskHostileServerFields: a server's task id, statuses and status
// messages are handed out redacted of the credential and capped, whatever
// the poll interval it asks for (negative, absurdly short) is held within
// bounds, and the call still gets its result.
func TestTaskHostileServerFields(t *testing.T) {
	const token = "tok-hostile-task-5521"
	plant := mcptestutil.Plant(token)
	for _, interval := range []any{-5, 1, "soon"} {
		h := &hostileTasks{id: "id-" + plant, message: "msg " + plant, interval: interval}
		srv := httptest.NewServer(h)
		cfg := ServerConfig{Name: "h", Transport: TransportHTTP, URL: srv.URL + "/mcp", Protocol: ProtocolLegacy,
			Token: token, Timeout: neverTimeout}
		m, ev := startFake(t, Options{}, cfg)
		waitReady(t, m, "h", 10*time.Second)
		// Polled at the interval asked for, a negative one could spin
		// and a huge one never end: pollEvery holds it within bounds
		// (TestPollEveryHeldWithinBounds), and the call ends in the hang
		// bound with its result.
		ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
		res, err := m.Call(ctx, "h__job", nil, "c1")
		cancel()
		if _, isNum := interval.(int); !isNum {
			// A pollInterval that is no number: the task call cannot be read.
			if err == nil {
				t.Fatalf("interval %v: a task with a bad pollInterval was taken: %+v", interval, res)
			}
			srv.Close()
			continue
		}
		if err != nil || res.Text != "job done" {
			t.Fatalf("interval %v: %v, %+v", interval, err, res)
		}
		sts := taskStatuses(ev, "c1")
		if len(sts) < 3 {
			t.Fatalf("interval %v: statuses %+v", interval, sts)
		}
		for _, s := range sts {
			for _, f := range []string{s.TaskID, s.Status, s.Message} {
				if strings.Contains(f, token) {
					t.Fatalf("the credential reached a task status: %q", f)
				}
				if len(f) > 500+len("…") { // the card shows at most 500 bytes of each
					t.Fatalf("a task field of %d bytes was handed out", len(f))
				}
			}
		}
		srv.Close()
	}
}

// TestPollEveryHeldWithinBounds: whatever poll interval a server asks for,
// latch waits between tasks/get at least minTaskPoll and at most
// maxTaskPoll; none, zero or a negative one is the default.
func TestPollEveryHeldWithinBounds(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	for _, tc := range []struct {
		ms   *int64
		want time.Duration
	}{
		{nil, defaultTaskPoll},
		{ms(-5), defaultTaskPoll},
		{ms(0), defaultTaskPoll},
		{ms(1), minTaskPoll},
		{ms(700), 700 * time.Millisecond},
		{ms(1 << 62), maxTaskPoll},
	} {
		got := pollEvery(tc.ms)
		if got != tc.want {
			t.Errorf("pollEvery(%v) = %v, want %v", tc.ms, got, tc.want)
		}
	}
}
