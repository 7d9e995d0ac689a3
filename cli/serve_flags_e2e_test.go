package cli

import (
	"strings"
	"testing"
)

// TestServeFlagsAfterTheSubcommandUnderTheSDK is the first hour's
// `latch serve --stdio --mode ask --config X` as an MCP client's config
// writes it: the official TypeScript SDK client starts the built latch
// with every flag after the subcommand and gets its tools (before cobra:
// "flag provided but not defined: -mode", and the client saw only
// "Connection closed"). Started with a mistyped flag, latch exits and its
// stderr, which the client shows, names the flag and the nearest one.
func TestServeFlagsAfterTheSubcommandUnderTheSDK(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, nil, true)
	after := map[string]any{"command": r.bin, "args": []string{"serve", "--stdio", "--mode", "ask", "--config", r.cfg}}
	res := sdkClient(t, r, map[string]any{"stdio": after, "list": true, "calls": []any{createAlice}})
	if res.ConnectError != "" || len(res.Tools) == 0 {
		t.Fatalf("latch serve --stdio --mode ask --config X under the SDK client: connect %q, %d tools\nstderr: %s",
			res.ConnectError, len(res.Tools), res.Stderr)
	}
	// --mode ask took: the unlisted call parks (read_only would deny it).
	if h := callHandle(t, res, 0); h.InvocationID == "" {
		t.Errorf("the unlisted call did not park under --mode ask: %+v", res.Calls)
	}

	typo := map[string]any{"command": r.bin, "args": []string{"serve", "--stdio", "--mdoe", "ask", "--config", r.cfg}}
	res = sdkClient(t, r, map[string]any{"stdio": typo, "list": true})
	if res.ConnectError == "" {
		t.Fatalf("latch serve --mdoe: the client connected")
	}
	if want := "latch: latch serve: unknown flag --mdoe; did you mean --mode? (see latch serve --help)"; !strings.Contains(res.Stderr, want) {
		t.Errorf("latch serve --mdoe under a client: its stderr does not say %q:\n%s", want, res.Stderr)
	}
}
