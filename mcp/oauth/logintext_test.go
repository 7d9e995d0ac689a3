package oauth_test

import (
	"testing"
	"time"

	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mark3labs/mcp-go/server/servertest"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

// TestLoginTextOnlyForServersThatLogIn: /servers says "login: not logged
// in" of an HTTP server that asked for a login (401) and has none, never
// of one that asks for none, though either could log in with OAuth.
func TestLoginTextOnlyForServersThatLogIn(t *testing.T) {
	open := servertest.NewTestStreamableHTTPServer(mcpserver.NewMCPServer("open", "1.0"))
	t.Cleanup(open.Close)
	m := mcp.New([]mcp.ServerConfig{{Name: "open", Transport: mcp.TransportHTTP, URL: open.URL + "/mcp",
		ConnectTimeout: 10 * time.Second}}, mcp.Options{})
	t.Cleanup(m.CloseAll)
	if err := m.Connect("open"); err != nil {
		t.Fatal(err)
	}
	st, _ := m.Status("open")
	if text := st.Login.LoginText(time.Now()); text != "" {
		t.Errorf("a server without a login says %q", text)
	}

	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	web := oauthManager(t, as, "", nil)
	web.Connect("web") //nolint:errcheck // fails: it needs a login
	st, _ = web.Status("web")
	if text := st.Login.LoginText(time.Now()); text != "not logged in" {
		t.Errorf("a server that asked for a login says %q, want \"not logged in\"", text)
	}
}
