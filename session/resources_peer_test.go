package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// TestPeerEverythingAttach: server-everything over stdio and streamable
// HTTP: a static document and a template-filled text are attached to a
// message and reach the model, a blob is described, and a watched
// resource's update is published.
func TestPeerEverythingAttach(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range []string{session.TransportStdio, "http"} {
		t.Run(transport, func(t *testing.T) {
			cfg := session.ServerConfig{Name: "every", Transport: transport, Timeout: 30 * time.Second}
			if transport == "http" {
				cfg.URL = mcptestutil.StartNPMHTTP(t, bin, "streamableHttp") + "/mcp"
			} else {
				cfg.Command, cfg.Args = bin, []string{"stdio"}
			}
			ol := newServer(t)
			s := newSession(t, ol, session.Options{Model: "qwen3:8b", Servers: []session.ServerConfig{cfg},
				Policy: permissions.Policy{Mode: permissions.Auto}})
			r := newReader(t, s)
			s.StartServers()
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			s.WaitServers(ctx)

			l, err := s.ListResources(ctx, "every")
			if err != nil || len(l.Templates) != 2 || !l.Subscribe || !l.Completions {
				t.Fatalf("listing: %+v %v", l, err)
			}
			const doc = "demo://resource/static/document/features.md"
			text := "read @every:" + doc + " and @every:demo://resource/dynamic/text/5 and @every:demo://resource/dynamic/blob/6"
			if err := s.Send(text); err != nil {
				t.Fatal(err)
			}
			evs := r.turn()
			a := attachments(evs)
			if len(a) != 3 || a[0].Kind != session.AttachText || a[1].Kind != session.AttachText || a[2].Kind != session.AttachDescribed {
				t.Fatalf("attachments: %+v", a)
			}
			msg := ol.WaitRequests(1, timeout)[0].Messages[0]
			for _, w := range []string{
				"[attached resource every:" + doc + " (text/markdown, ",
				"[end of every:" + doc + "]",
				"[attached resource every:demo://resource/dynamic/text/5 (text/plain, ",
				"Resource 5: This is a plaintext resource created at",
				"[not attached: every:demo://resource/dynamic/blob/6 is binary (text/plain, ",
			} {
				if !strings.Contains(msg.Content, w) {
					t.Errorf("the model's message lacks %q:\n%.600s", w, msg.Content)
				}
			}

			if err := s.WatchResource(ctx, "every", doc); err != nil {
				t.Fatal(err)
			}
			if l, _ := s.ListResources(ctx, "every"); len(l.Watched) != 1 || l.Watched[0] != doc {
				t.Errorf("watched: %v", l.Watched)
			}
			// server-everything sends updates once this tool turns them on.
			ol.Script(callsTurn(toolCall("call_toggle01", "every__toggle-subscriber-updates")))
			if err := s.Send("turn updates on"); err != nil {
				t.Fatal(err)
			}
			r.until(func(e session.Event) bool {
				u, ok := e.(*session.ResourceUpdatedEvent)
				return ok && u.Server == "every" && u.URI == doc
			})
			r.turn()
			if err := s.UnwatchResource(ctx, "every", doc); err != nil {
				t.Error(err)
			}
			ol.Script(callsTurn(toolCall("call_toggle02", "every__toggle-subscriber-updates")))
			if err := s.Send("turn updates off"); err != nil {
				t.Fatal(err)
			}
			r.turn()
		})
	}
}
