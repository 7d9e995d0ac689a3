package cli

import (
	"strings"
	"testing"
)

// latch serve takes its park quota from the config: with
// serve.park_max_calls_per_client 1, an SDK client's second call that
// would park is refused with an error result naming the key, and only
// the first waits for a person.
func TestServeParkQuotaFromTheConfig(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"permissions": map[string]any{"mode": "approve"},
		"serve": map[string]any{"park_max_calls_per_client": 1}}, true)
	res := sdkClient(t, r, map[string]any{"stdio": r.serveStdio(),
		"calls": []any{createEntity("alice"), createEntity("bob")}})
	if res.ConnectError != "" {
		t.Fatal(res.ConnectError)
	}
	callHandle(t, res, 0)
	text, isError := callText(t, res, 1)
	want := "too many calls waiting for approval from "
	if !isError || !strings.Contains(text, want) || !strings.Contains(text, "at most 1 wait at once (serve.park_max_calls_per_client)") {
		t.Errorf("the second call: isError %v, %q; want the quota's refusal", isError, text)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("server-memory got %d calls; want none before a person decides", n)
	}
}
