package cli

import (
	"strings"
	"testing"
)

// Two clients that each start a gateway on one config (two editors open)
// both get one: the second is not refused, it runs a session of its own.
// Stopped and started again, each new gateway takes up a run with calls
// still waiting, the newest first, so no parked call is left to a run no
// one starts again.
func TestServeTwoGatewaysOnOneConfig(t *testing.T) {
	t.Parallel()
	const token = "two-gateways-token-for-the-test"
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "ask"},
		"serve": map[string]any{"await_poll": "1s"}}, true)
	a := startServeHTTP(t, r, token)
	ann := callHandle(t, sdkClient(t, r, map[string]any{"http": map[string]any{"url": a.url, "token": token},
		"calls": []any{createEntity("ann")}}), 0)
	b := startServeHTTP(t, r, token)
	ben := callHandle(t, sdkClient(t, r, map[string]any{"http": map[string]any{"url": b.url, "token": token},
		"calls": []any{createEntity("ben")}}), 0)
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, ann.InvocationID) || !strings.Contains(list.stdout, ben.InvocationID) {
		t.Errorf("latch approvals with both running:\n%s%s", list.stdout, list.stderr)
	}
	for _, s := range []*served{a, b} {
		s.interrupt(t)
	}

	c := startServeHTTP(t, r, token)
	if text, _ := pollOnce(t, r, map[string]any{"url": c.url, "token": token}, ben.InvocationID); !strings.Contains(text, "awaiting_approval") {
		t.Errorf("ben's poll on the first gateway started again: %q, want it waiting (the newest run)", text)
	}
	d := startServeHTTP(t, r, token)
	if text, _ := pollOnce(t, r, map[string]any{"url": d.url, "token": token}, ann.InvocationID); !strings.Contains(text, "awaiting_approval") {
		t.Errorf("ann's poll on the second gateway started again: %q, want it waiting (the other run)", text)
	}
}
