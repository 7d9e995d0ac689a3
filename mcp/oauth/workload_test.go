package oauth_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

// TestOAuthWorkload connects a server with grant "workload": the
// workload's JWT, read from its file, gets the token with no browser and
// no /login; it is never shown; a JWT the authorization server refuses
// leaves the server saying so, asked once, no other grant tried.
func TestOAuthWorkload(t *testing.T) {
	const jwt = "eyJ.workload-jwt-value.sig"
	as := oauthtest.New(oauthtest.Config{ClientID: "workload-1", WorkloadJWT: jwt})
	t.Cleanup(as.Close)
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte(jwt+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	workload := func(c *mcp.ServerConfig, o *mcp.Options) {
		c.Grant, c.ClientID, c.WorkloadTokenFile = mcp.GrantWorkload, "workload-1", file
		o.OpenBrowser = nil // no one to log in: the grant needs none
	}
	m := oauthManager(t, as, t.TempDir(), workload)
	if err := m.Connect("web"); err != nil {
		t.Fatalf("connect: %v", err)
	}
	callWhoami(t, m)
	if strings.Contains(m.Redact("x "+jwt+" y"), jwt) {
		t.Error("the workload JWT is not redacted")
	}

	if err := os.WriteFile(file, []byte("eyJ.another.sig"), 0o600); err != nil {
		t.Fatal(err)
	}
	before := as.WorkloadGrants
	m2 := oauthManager(t, as, t.TempDir(), workload)
	if err := m2.Connect("web"); err == nil {
		t.Fatal("connected with a JWT the authorization server refuses")
	}
	st, _ := m2.Status("web")
	if !strings.Contains(st.Summary(), "invalid_grant") {
		t.Errorf("after a refusal: %s, want it to say invalid_grant", st.Summary())
	}
	if n := as.WorkloadGrants - before; n != 1 {
		t.Errorf("the refused grant was asked for %d times, want once", n)
	}
}
