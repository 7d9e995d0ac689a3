package oauth_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

// TestOAuthDPoP logs in to a server whose tokens are DPoP-bound and whose
// servers both ask for a nonce first: with "dpop" set, the login and the
// call go through, the token is only ever sent with the DPoP scheme, the
// key is kept with the login (a restart needs no new login) and is never
// shown.
func TestOAuthDPoP(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{DPoP: true, DPoPNonce: true})
	t.Cleanup(as.Close)
	dir := t.TempDir()
	dpop := func(c *mcp.ServerConfig, _ *mcp.Options) { c.DPoP = true }
	m := oauthManager(t, as, dir, dpop)
	m.Connect("web") //nolint:errcheck // it needs a login first
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	if as.DPoPProofs < 2 {
		t.Errorf("%d DPoP proofs, want one for the token and one a request at least", as.DPoPProofs)
	}
	for _, req := range as.Seen["mcp"] {
		if strings.Contains(req, "Bearer ") {
			t.Errorf("a DPoP-bound token sent as a Bearer token:\n%s", req)
		}
	}
	m.CloseAll()

	raw, err := os.ReadFile(filepath.Join(dir, "web.json"))
	if err != nil || !strings.Contains(string(raw), "PRIVATE KEY") {
		t.Fatalf("the key is not kept with the login: %v", err)
	}
	m2 := oauthManager(t, as, dir, dpop)
	if err := m2.Connect("web"); err != nil {
		t.Fatalf("after a restart: %v", err)
	}
	callWhoami(t, m2)
	var rec struct {
		Key string `json:"dpop_key"`
	}
	if json.Unmarshal(raw, &rec) != nil || rec.Key == "" || strings.Contains(m2.Redact("x "+rec.Key+" y"), rec.Key) {
		t.Errorf("the DPoP key is not redacted")
	}
}
