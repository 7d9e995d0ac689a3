package cli

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/session/ollamatest"
)

// TestPromptSaysWhichTokenWasRefused: latch -p with two HTTP servers (real
// mcp-go servers behind a bearer check) that refuse the static tokens
// they are given — one from token_env, one in an Authorization header as
// other apps' config files write it — says on stderr that each refused
// its token and where the token came from, never the token, never
// "expired" or a browser login, and no chat command (-p has no chat).
func TestPromptSaysWhichTokenWasRefused(t *testing.T) {
	t.Parallel()
	const envSecret, headerSecret = "wrong-env-t0ken", "wrong-header-t0ken"
	mcpSrv := mcpserver.NewStreamableHTTPServer(mcpserver.NewMCPServer("guarded", "1.0"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer right-token" {
			w.Header().Set("WWW-Authenticate", `Bearer realm="guarded"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpSrv.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"env": map[string]any{"url": srv.URL + "/mcp", "token_env": "GUARDED_TOKEN"},
		"hdr": map[string]any{"url": srv.URL + "/mcp", "headers": map[string]any{"Authorization": "Bearer " + headerSecret}},
	}}, false, "GUARDED_TOKEN="+envSecret)
	r.fake.Script(ollamatest.TextTurn("Hello."))
	res := r.run("", "--model", e2eModel, "-p", "hi")
	for _, want := range []string{
		"MCP server env refused the token from $GUARDED_TOKEN (token_env) (401 Unauthorized)",
		"MCP server hdr refused the token in its config's Authorization header (headers) (401 Unauthorized)",
	} {
		if !strings.Contains(res.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, res.stderr)
		}
	}
	for _, not := range []string{envSecret, headerSecret, "expired", "browser", "/login", "/connect", "/token"} {
		if strings.Contains(res.stderr+res.stdout, not) {
			t.Errorf("-p's output holds %q:\n%s", not, res.stderr)
		}
	}
}
