package mcp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"

	mcpserver "github.com/mark3labs/mcp-go/server"
)

// resourceEvents are the resource events recorded so far, as text.
func resourceEvents(ev *events) []string {
	var out []string
	for _, e := range eventList(ev) {
		switch e := e.(type) {
		case ResourceUpdated:
			out = append(out, "updated "+e.Server+" "+e.URI)
		case ResourcesChanged:
			out = append(out, "changed "+e.Server)
		}
	}
	return out
}

// TestResources: every page of a server's resources and templates is
// listed, text is read (capped, with its full size), a blob decoded, a
// failed read names the server and URI, a template variable completes,
// and subscriptions and both notifications become events; a server
// without resources says so.
func TestResources(t *testing.T) {
	srv := mcptestutil.ResourceServer("")
	plain := mcpserver.NewMCPServer("plain", "1.0", mcpserver.WithToolCapabilities(false))
	m, ev := startFake(t, Options{},
		ServerConfig{Name: "res", Transport: TransportInProcess, InProcess: srv},
		ServerConfig{Name: "plain", Transport: TransportInProcess, InProcess: plain})
	waitReady(t, m, "res", 10*time.Second)
	waitReady(t, m, "plain", 10*time.Second)
	ctx := context.Background()

	if got := m.ResourceServers(); len(got) != 1 || got[0] != "res" {
		t.Errorf("ResourceServers: %v", got)
	}
	if _, err := m.ListResources(ctx, "plain"); !errors.Is(err, ErrNoResources) || !strings.Contains(err.Error(), "plain") {
		t.Errorf("plain's resources: %v", err)
	}
	rs, err := m.ListResources(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs {
		uris = append(uris, r.URI)
	}
	want := "test://bin/data.bin test://broken test://img/dot.png test://notes/big.txt test://notes/readme.txt"
	if strings.Join(uris, " ") != want {
		t.Errorf("resources (two a page): %v, want %s", uris, want)
	}
	if rs[2].MIMEType != "image/png" || rs[2].Description != "about dot" || rs[2].Server != "res" {
		t.Errorf("dot.png: %+v", rs[2])
	}
	ts, err := m.ListResourceTemplates(ctx, "res")
	if err != nil || len(ts) != 1 || ts[0].URITemplate != "test://notes/{name}" {
		t.Fatalf("templates: %+v %v", ts, err)
	}

	parts, err := m.ReadResource(ctx, "res", "test://notes/big.txt", 1000)
	if err != nil || len(parts) != 1 {
		t.Fatalf("read big: %v %v", parts, err)
	}
	if p := parts[0]; !p.Cut || len(p.Text) != 1000 || p.Size != mcptestutil.BigTextSize || p.IsBlob {
		t.Errorf("big.txt cut to 1000: cut=%v len=%d size=%d", p.Cut, len(p.Text), p.Size)
	}
	parts, err = m.ReadResource(ctx, "res", "test://img/dot.png", 1000)
	if err != nil || len(parts) != 1 || !parts[0].IsBlob || !bytes.Equal(parts[0].Blob, mcptestutil.DotPNG) || parts[0].MIMEType != "image/png" {
		t.Errorf("read dot.png: %+v %v", parts, err)
	}
	parts, err = m.ReadResource(ctx, "res", "test://notes/alpha", 0)
	if err != nil || len(parts) != 1 || parts[0].Text != "note alpha" {
		t.Errorf("read the template's alpha: %+v %v", parts, err)
	}
	if _, err := m.ReadResource(ctx, "res", "test://broken", 0); err == nil ||
		!strings.Contains(err.Error(), "res: cannot read test://broken") {
		t.Errorf("read broken: %v", err)
	}
	vals, err := m.CompleteResource(ctx, "res", "test://notes/{name}", "name", "al", nil)
	if err != nil || strings.Join(vals, " ") != "alpha alpine" {
		t.Errorf("complete al: %v %v", vals, err)
	}

	if err := m.Subscribe(ctx, "res", "test://notes/readme.txt"); err != nil {
		t.Fatal(err)
	}
	mcptestutil.UpdateResource(srv, "test://notes/readme.txt")
	srv.DeleteResources("test://broken")
	mcptestutil.WaitFor(t, 5*time.Second, "the update and the list change", func() bool {
		got := strings.Join(resourceEvents(ev), "|")
		return strings.Contains(got, "updated res test://notes/readme.txt") && strings.Contains(got, "changed res")
	})
	if err := m.Unsubscribe(ctx, "res", "test://notes/readme.txt"); err != nil {
		t.Error(err)
	}
	if err := m.Subscribe(ctx, "nope", "x"); !errors.Is(err, ErrUnknownServer) {
		t.Errorf("subscribe on an unknown server: %v", err)
	}
	m.Close("res")
	if _, err := m.ReadResource(ctx, "res", "test://notes/readme.txt", 0); !errors.Is(err, ErrNotConnected) {
		t.Errorf("read on a closed server: %v", err)
	}
}

// TestResourcesRedacted: a hostile server's names, URIs, descriptions,
// contents, completions and errors come out of the manager with every
// credential redacted.
func TestResourcesRedacted(t *testing.T) {
	plant := mcptestutil.Plant(litSecret)
	srv := mcptestutil.ResourceServer(plant)
	m, _ := startFake(t, Options{},
		ServerConfig{Name: "res", Transport: TransportInProcess, InProcess: srv},
		ServerConfig{Name: "lit", Transport: TransportHTTP, URL: "https://lit.example/mcp", Token: litSecret, Disabled: true})
	waitReady(t, m, "res", 10*time.Second)
	ctx := context.Background()
	rs, err := m.ListResources(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "resources", jsonOf(rs))
	if !strings.Contains(jsonOf(rs), "test://plant/") {
		t.Errorf("the planted resource is missing: %s", jsonOf(rs))
	}
	ts, err := m.ListResourceTemplates(ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "templates", jsonOf(ts))
	parts, err := m.ReadResource(ctx, "res", "test://notes/readme.txt", 0)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "contents", jsonOf(parts))
	// Cut at the cap right inside the planted secret: no start of it is left.
	parts, err = m.ReadResource(ctx, "res", "test://notes/big.txt", strings.Index(plant, litSecret)+6)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(parts[0].Text, litSecret[:5]) {
		t.Errorf("a cut leaves the start of the secret: %q", parts[0].Text)
	}
	_, err = m.ReadResource(ctx, "res", "test://broken", 0)
	noSecret(t, "read error", err.Error())
	vals, err := m.CompleteResource(ctx, "res", "test://notes/{name}", "name", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "completions", jsonOf(vals))
}
