package mcp

import (
	"context"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestElicitCapabilityInProcess: with an Elicit handler the client declares
// both modes to an in-process server; without one, nothing.
func TestElicitCapabilityInProcess(t *testing.T) {
	for _, c := range []struct {
		name   string
		elicit ElicitFunc
		want   string
	}{
		{"with a handler", func(context.Context, string, ElicitRequest) (ElicitResponse, error) {
			return ElicitResponse{Action: ElicitDecline}, nil
		}, `{"form":{},"url":{}}`},
		{"without", nil, "null"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := startFake(t, Options{Elicit: c.elicit},
				ServerConfig{Name: "desk", Transport: TransportInProcess, InProcess: mcptestutil.FormServer("", "https://example.com")})
			waitState(t, m, "desk", StateConnected, 10*time.Second)
			res, err := m.Call(context.Background(), "desk__client_caps", nil, "")
			if err != nil || res.Text != c.want {
				t.Fatalf("declared %q (%v), want %q", res.Text, err, c.want)
			}
		})
	}
}

// TestElicitRequestRedactedAndEnded: the handler gets the request with
// every credential redacted (message, schema, URL), and it ends when the
// connection closes.
func TestElicitRequestRedactedAndEnded(t *testing.T) {
	const secret = "vault-token-5eCr3T-9876"
	got := make(chan ElicitRequest, 1)
	ended := make(chan error, 1)
	elicit := func(ctx context.Context, server string, req ElicitRequest) (ElicitResponse, error) {
		got <- req
		<-ctx.Done()
		ended <- ctx.Err()
		return ElicitResponse{Action: ElicitCancel}, nil
	}
	m, _ := startFake(t, Options{Elicit: elicit}, ServerConfig{Name: "desk", Transport: TransportInProcess, Token: secret,
		InProcess: mcptestutil.FormServer(secret, "https://example.com/"+secret)})
	waitState(t, m, "desk", StateConnected, 10*time.Second)
	go func() { _, _ = m.Call(context.Background(), "desk__fill_form", nil, "") }()
	var req ElicitRequest
	select {
	case req = <-got:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatal("no elicitation")
	}
	if req.Mode != ElicitForm || !strings.Contains(req.Message, "[redacted]") || strings.Contains(req.Message, secret) {
		t.Errorf("request: %+v", req)
	}
	fields, err := ParseForm(req.Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		if strings.Contains(f.Title, secret) || !strings.Contains(f.Title, "[redacted]") {
			t.Errorf("field %s title %q not redacted", f.Name, f.Title)
		}
	}
	if err := m.Close("desk"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ended:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatal("the handler did not end when the connection closed")
	}
}

// TestPeerEverythingElicitCapability: server-everything lists its
// elicitation tools only to a client that declared the capability (form
// and url) — over stdio and streamable HTTP; over legacy SSE, where the
// client cannot answer a server's requests, latch declares nothing.
func TestPeerEverythingElicitCapability(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	decline := func(context.Context, string, ElicitRequest) (ElicitResponse, error) {
		return ElicitResponse{Action: ElicitDecline}, nil
	}
	for _, c := range []struct {
		transport string
		offered   bool
	}{{TransportStdio, true}, {TransportHTTP, true}, {TransportSSE, false}} {
		t.Run(c.transport, func(t *testing.T) {
			m, _, _ := peerConnectOpts(t, Options{Elicit: decline}, peerEverything(t, bin, c.transport, 30*time.Second))
			for _, tool := range []string{"every__trigger-elicitation-request", "every__trigger-url-elicitation"} {
				if _, ok := m.Lookup(tool); ok != c.offered {
					t.Errorf("%s listed: %v, want %v", tool, ok, c.offered)
				}
			}
		})
	}
}
