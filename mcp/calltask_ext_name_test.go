package mcp

import (
	"context"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestExtTaskIDNotAPlainHeaderValue: a server may mint a task id that is
// no plain header value (a leading space, a letter beyond ASCII); its
// tasks/* requests still name it in Mcp-Name, encoded as SEP-2243 says
// (=?base64?…?=), so the server finds the task and the result comes
// back, instead of every poll being refused as a header mismatch.
func TestExtTaskIDNotAPlainHeaderValue(t *testing.T) {
	ts := mcptestutil.NewExtTaskServer(300*time.Millisecond, "")
	ts.SetTaskIDPrefix(" tâche-")
	m, _ := startFake(t, Options{}, extTaskHTTP(t, ts))
	waitReady(t, m, "tasks", 10*time.Second)
	res, err := m.Call(context.Background(), "tasks__slow", nil, "c1")
	if err != nil || res.Text != "slow done 1" {
		t.Fatalf("slow: %v, %+v", err, res)
	}
	created := ts.Created()
	names := ts.Names()
	if len(created) != 1 || len(names) == 0 {
		t.Fatalf("created %q, tasks/* requests named %q", created, names)
	}
	for _, name := range names {
		if name != created[0] {
			t.Fatalf("a tasks/* request named %q in Mcp-Name, want %q", name, created[0])
		}
	}
}
