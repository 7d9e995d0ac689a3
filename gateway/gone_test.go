package gateway_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// A call of a tool the client was told of, whose server no longer has it,
// is a tool error naming the tool and saying what became of it, not a
// JSON-RPC internal error.
func TestServedToolGoneIsToolError(t *testing.T) {
	up := newHoldServer()
	r := startRig(t, gateway.Options{}, false, session.Options{}, session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.connect(t, "late", nil)
	up.srv.DeleteTools("echo")
	mcptestutil.WaitFor(t, 10*time.Second, "the session to see up__echo gone", func() bool {
		tools, _ := r.sess.Tools("")
		return !slices.ContainsFunc(tools, func(t session.Tool) bool { return t.Name == "up__echo" })
	})
	res, err := call(t, c, "up__echo", nil)
	if err != nil {
		t.Fatalf("a JSON-RPC error: %v; want a tool error", err)
	}
	if want := `no tool "up__echo" now: its server is not connected, or no longer has it`; !res.IsError || !strings.Contains(text(res), want) {
		t.Errorf("isError %v, %q; want %q", res.IsError, text(res), want)
	}
}
