package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestPeerEverythingResources: server-everything over stdio and streamable
// HTTP lists its demo:// resources and templates, reads a static document,
// a template-filled text and a blob, completes the template's variable,
// sends notifications/resources/updated for a subscribed resource, and its
// tools' resource links and embedded resources are kept in the result.
func TestPeerEverythingResources(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range []string{TransportStdio, TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			cfg := peerEverything(t, bin, transport, 30*time.Second)
			m, ev := startFake(t, Options{}, cfg)
			waitReady(t, m, "every", 15*time.Second)
			ctx := context.Background()
			caps, err := m.ResourceCapabilities("every")
			if err != nil || !caps.Subscribe || !caps.Completions {
				t.Fatalf("capabilities: %+v %v", caps, err)
			}
			rs, err := m.ListResources(ctx, "every")
			if err != nil || len(rs) == 0 {
				t.Fatalf("resources: %v %v", rs, err)
			}
			const doc = "demo://resource/static/document/features.md"
			found := false
			for _, r := range rs {
				found = found || r.URI == doc && r.MIMEType == "text/markdown"
			}
			if !found {
				t.Errorf("no %s among %+v", doc, rs)
			}
			ts, err := m.ListResourceTemplates(ctx, "every")
			if err != nil || len(ts) != 2 || ts[1].URITemplate != "demo://resource/dynamic/text/{resourceId}" {
				t.Fatalf("templates: %+v %v", ts, err)
			}
			parts, err := m.ReadResource(ctx, "every", doc, 0)
			if err != nil || len(parts) != 1 || parts[0].IsBlob || !strings.Contains(parts[0].Text, "#") {
				t.Errorf("read %s: %+v %v", doc, parts, err)
			}
			parts, err = m.ReadResource(ctx, "every", "demo://resource/dynamic/text/7", 0)
			if err != nil || len(parts) != 1 || !strings.HasPrefix(parts[0].Text, "Resource 7: This is a plaintext resource") {
				t.Errorf("read the text template with 7: %+v %v", parts, err)
			}
			parts, err = m.ReadResource(ctx, "every", "demo://resource/dynamic/blob/2", 0)
			if err != nil || len(parts) != 1 || !parts[0].IsBlob || !strings.HasPrefix(string(parts[0].Blob), "Resource 2: This is a base64 blob") {
				t.Errorf("read the blob template with 2: %+v %v", parts, err)
			}
			vals, err := m.CompleteResource(ctx, "every", ts[1].URITemplate, "resourceId", "3", nil)
			if err != nil || len(vals) != 1 || vals[0] != "3" {
				t.Errorf("complete resourceId 3: %v %v", vals, err)
			}

			if err := m.Subscribe(ctx, "every", doc); err != nil {
				t.Fatal(err)
			}
			if _, err := m.Call(ctx, "every__toggle-subscriber-updates", nil, ""); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _, _ = m.Call(context.Background(), "every__toggle-subscriber-updates", nil, "") })
			mcptestutil.WaitFor(t, 10*time.Second, "notifications/resources/updated for "+doc, func() bool {
				return strings.Contains(strings.Join(resourceEvents(ev), "|"), "updated every "+doc)
			})

			res, err := m.Call(ctx, "every__get-resource-links", map[string]any{"count": 2}, "")
			if err != nil || len(res.Resources) != 2 || res.Resources[0].URI != "demo://resource/dynamic/blob/1" ||
				res.Resources[1].URI != "demo://resource/dynamic/text/2" || res.Resources[0].Embedded {
				t.Errorf("resource links: %+v %v", res, err)
			}
			res, err = m.Call(ctx, "every__get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 4}, "")
			if err != nil || len(res.Resources) != 1 || res.Resources[0].URI != "demo://resource/dynamic/text/4" || !res.Resources[0].Embedded {
				t.Errorf("embedded resource: %+v %v", res, err)
			}
		})
	}
}
