package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestPeerEverythingPrompts: server-everything over stdio and streamable
// HTTP lists its four prompts with their arguments, completes the
// completable prompt's department and, given the department, its name,
// and renders each prompt.
func TestPeerEverythingPrompts(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range []string{TransportStdio, TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			m, _ := promptConnect(t, peerEverything(t, bin, transport, 30*time.Second))
			mcptestutil.WaitFor(t, 10*time.Second, "the prompts", func() bool { return len(m.Prompts()) >= 4 })
			args := map[string]string{}
			for _, p := range m.Prompts() {
				args[p.Name] = p.ArgumentNames()
			}
			for name, want := range map[string]string{"simple-prompt": "none", "args-prompt": "city (required), state",
				"completable-prompt": "department (required), name (required)", "resource-prompt": "resourceType (required), resourceId (required)"} {
				if args[name] != want {
					t.Errorf("%s: arguments %q, want %q", name, args[name], want)
				}
			}
			ctx := context.Background()
			vals, err := m.Complete(ctx, "every", "completable-prompt", "department", "E", nil)
			if err != nil || !slices.Equal(vals, []string{"Engineering"}) {
				t.Errorf("department E: %v, %v", vals, err)
			}
			vals, err = m.Complete(ctx, "every", "completable-prompt", "name", "", map[string]string{"department": "Sales"})
			if err != nil || !slices.Equal(vals, []string{"David", "Eve", "Frank"}) {
				t.Errorf("name in Sales: %v, %v", vals, err)
			}
			res, err := m.GetPrompt(ctx, "every", "resource-prompt", map[string]string{"resourceType": "Blob", "resourceId": "2"})
			if err != nil || len(res.Messages) != 2 {
				t.Fatalf("resource-prompt: %+v, %v", res, err)
			}
			// A text/plain blob is text: decoded, inline.
			if r := res.Messages[1]; r.Kind != PartResource || !strings.Contains(r.Text, "Resource 2: This is a base64 blob") || r.Data != nil {
				t.Errorf("the embedded blob: %+v", r)
			}
		})
	}
}
