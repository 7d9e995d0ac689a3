package gateway_test

import (
	"encoding/json"
	"strings"
	"testing"

	"latch/gateway"
	"latch/mcp/mcptestutil"
)

// With JSON, each call is one JSON object on a line: client, tool,
// decision, duration, outcome, and why a call failed; a credential the
// client sent in the arguments, or the server put in its results, errors
// or progress, is never in it, nor a terminal escape.
func TestJSONLogOneObjectPerCallNoCredential(t *testing.T) {
	var log mcptestutil.SyncBuffer
	r := newRig(t, gateway.Options{Log: &log, JSON: true}, hostileServers()...)
	c := r.connect(t, "json-client", nil)
	args := map[string]any{"arg": "the client's " + secret}
	for _, tool := range []string{"hostile__leak", "hostile__fail_rpc", "hostile__fail_tool", "hostile__progress"} {
		_, _ = call(t, c, tool, args)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines, want one per call:\n%s", len(lines), log.String())
	}
	want := map[string]struct{ outcome, err string }{
		"hostile__leak": {"ok", ""}, "hostile__fail_rpc": {"failed", "[redacted]"},
		"hostile__fail_tool": {"tool_error", ""}, "hostile__progress": {"ok", ""},
	}
	for _, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Errorf("not a JSON object: %q", line)
			continue
		}
		tool, _ := obj["tool"].(string)
		w, ok := want[tool]
		_, hasDur := obj["duration_ms"].(float64)
		if !ok || obj["event"] != "call" || obj["client"] != "json-client" || obj["decision"] != "allowed" ||
			obj["outcome"] != w.outcome || !hasDur || obj["time"] == nil {
			t.Errorf("line %s: want event call, client json-client, decision allowed, outcome %q, duration_ms, time", line, w.outcome)
		}
		if e, _ := obj["error"].(string); !strings.Contains(e, w.err) {
			t.Errorf("%s's error %q, want it to hold %q", tool, e, w.err)
		}
		for k, v := range obj {
			if s, ok := v.(string); ok && mcptestutil.FirstForbidden(s) != "" {
				t.Errorf("%s's %s holds an escape: %q", tool, k, s)
			}
		}
	}
	if strings.Contains(log.String(), secret) {
		t.Errorf("the credential is in the log:\n%s", log.String())
	}
}
