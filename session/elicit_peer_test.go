package session_test

import (
	"strings"
	"testing"
	"time"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// everything is server-everything's config over transport.
func everything(t *testing.T, bin, transport string) session.ServerConfig {
	cfg := session.ServerConfig{Name: "every", Transport: transport, Timeout: 60 * time.Second}
	if transport == mcp.TransportHTTP {
		cfg.URL = mcptestutil.StartNPMHTTP(t, bin, "streamableHttp") + "/mcp"
	} else {
		cfg.Command, cfg.Args = bin, []string{"stdio"}
	}
	return cfg
}

// TestPeerEverythingElicitation: server-everything's trigger-elicitation-request,
// over stdio and streamable HTTP, answered through the session: accepted
// with values (its result lists them), declined, cancelled; its
// trigger-url-elicitation shown (URL and domain) and declined; and with no
// one to answer (-p), declined.
func TestPeerEverythingElicitation(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range []string{mcp.TransportStdio, mcp.TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			h := newElicitHarness(t, everything(t, bin, transport), false)
			ev := h.request(h.call("every__trigger-elicitation-request"))
			if ev.Server != "every" || len(ev.Fields) != 13 || ev.Fields[0].Name != "name" || !ev.Fields[0].Required {
				t.Fatalf("the form: %+v", ev)
			}
			content := mcp.FormDefaults(ev.Fields)
			content["name"], content["email"], content["check"] = "Ada Lovelace", "ada@example.com", true
			if err := h.s.AnswerElicitation(ev.ID, session.ElicitAccept, content); err != nil {
				t.Fatal(err)
			}
			res, _ := h.result()
			containsAll(t, res.Content, "User provided the requested information", "- Name: Ada Lovelace",
				"- Email: ada@example.com", "- Agreed to terms: true", "- Favorite Integer: 42")

			for action, want := range map[string]string{session.ElicitDecline: "User declined", session.ElicitCancel: "User cancelled"} {
				ev := h.request(h.call("every__trigger-elicitation-request"))
				if err := h.s.AnswerElicitation(ev.ID, action, nil); err != nil {
					t.Fatal(err)
				}
				if res, _ := h.result(); !strings.Contains(res.Content, want) {
					t.Errorf("%s: %s", action, res.Content)
				}
			}

			ev = h.request(h.call("every__trigger-url-elicitation", "url", "https://auth.example.com/device?code=42",
				"message", "Sign in to continue"))
			if ev.Mode != session.ElicitURL || ev.URL != "https://auth.example.com/device?code=42" || ev.Domain != "auth.example.com" ||
				ev.Message != "Sign in to continue" {
				t.Fatalf("the URL request: %+v", ev)
			}
			if err := h.s.AnswerElicitation(ev.ID, session.ElicitDecline, nil); err != nil {
				t.Fatal(err)
			}
			if res, _ := h.result(); !strings.Contains(res.Content, "User declined to open the URL") {
				t.Errorf("URL declined: %s", res.Content)
			}

			p := newElicitHarness(t, everything(t, bin, transport), true)
			p.call("every__trigger-elicitation-request")
			res, ans := p.result()
			if ans.By != "policy" || !strings.Contains(res.Content, "User declined") {
				t.Errorf("-p: %+v, %s", ans, res.Content)
			}
		})
	}
}
