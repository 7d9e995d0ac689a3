package gateway_test

import (
	"strings"
	"testing"

	"latch/gateway"
	"latch/session"
)

// In read_only mode a call of a tool that is not allow-listed is refused;
// the first refusal of each tool says how to have such calls wait for a
// person instead (--mode ask or approve, serve.park_unlisted), later ones
// of the same tool do not repeat it, and another tool's first one does.
func TestUnlistedRefusalSaysHowToWaitOncePerTool(t *testing.T) {
	up := newHoldServer()
	r := newGatewayIn(t, gateway.Options{}, false, session.Options{},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.stdioClient(t, "claude-code")
	hints := []string{"--mode ask", "--mode approve", "park_unlisted"}
	refused := func(tool string) string {
		t.Helper()
		res, err := call(t, c, tool, map[string]any{"text": "hi"})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError || !strings.HasPrefix(text(res), "denied: ") {
			t.Fatalf("%s: isError %v, %q; want a refusal", tool, res.IsError, text(res))
		}
		return text(res)
	}
	first := refused("up__echo")
	for _, h := range hints {
		if !strings.Contains(first, h) {
			t.Errorf("the first refusal of up__echo does not say %q:\n%s", h, first)
		}
	}
	second := refused("up__echo")
	if strings.Contains(second, "park_unlisted") || !strings.HasPrefix(first, second) {
		t.Errorf("the second refusal of up__echo is not the short words:\n%s", second)
	}
	if other := refused("up__hold"); !strings.Contains(other, "park_unlisted") {
		t.Errorf("the first refusal of up__hold does not say how to wait:\n%s", other)
	}
}
