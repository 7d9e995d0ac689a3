package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// latch serve --json: every line on stderr is a JSON object, from the
// start line to the stop line, one per call between; a credential in the
// call's arguments or in the server's result is in none of them. With
// --quiet, no line per call.
func TestServeJSONLog(t *testing.T) {
	t.Parallel()
	const secret = "sekrit-json-5d2b7a"
	r := secretRig(t, secret)
	res := sdkClient(t, r, map[string]any{
		"stdio": map[string]any{"command": r.bin, "args": []string{"--config", r.cfg, "serve", "--stdio", "--json"}},
		"calls": []any{map[string]any{"name": "fake__env", "arguments": map[string]any{"note": secret}}}})
	if len(res.Calls) != 1 || res.Calls[0].Result == nil {
		t.Fatalf("call: %+v", res.Calls)
	}
	if strings.Contains(res.Stderr, secret) {
		t.Errorf("the credential is in the log:\n%s", res.Stderr)
	}
	var events []string
	for _, line := range strings.Split(strings.TrimSpace(res.Stderr), "\n") {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Errorf("not a JSON object: %q", line)
			continue
		}
		ev, _ := obj["event"].(string)
		events = append(events, ev)
		switch ev {
		case "start":
			if obj["transport"] != "stdio" || obj["session"] == "" {
				t.Errorf("start line %s", line)
			}
		case "call":
			if obj["tool"] != "fake__env" || obj["decision"] != "allowed" || obj["outcome"] != "ok" {
				t.Errorf("call line %s", line)
			}
		}
	}
	if strings.Join(events, " ") != "start call stop" {
		t.Errorf("events %q, want start, the call, stop", events)
	}

	quiet := sdkClient(t, r, map[string]any{
		"stdio": map[string]any{"command": r.bin, "args": []string{"--config", r.cfg, "serve", "--stdio", "--json", "--quiet"}},
		"calls": []any{map[string]any{"name": "fake__env"}}})
	if len(quiet.Calls) != 1 || quiet.Calls[0].Result == nil {
		t.Fatalf("call with --quiet: %+v", quiet.Calls)
	}
	if strings.Contains(quiet.Stderr, `"event":"call"`) {
		t.Errorf("--quiet --json still logs the call:\n%s", quiet.Stderr)
	}
}
