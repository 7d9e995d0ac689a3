package oauth_test

import (
	"context"
	"strings"
	"testing"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

// TestOAuthRegistersAsNative registers latch, a program on the person's
// machine with a loopback redirect, as a native application (SEP-837).
func TestOAuthRegistersAsNative(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), nil)
	m.Connect("web") //nolint:errcheck // it needs a login first
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if len(as.Registrations) != 1 {
		t.Fatalf("%d registrations, want 1", len(as.Registrations))
	}
	if got := as.Registrations[0]["application_type"]; got != "native" {
		t.Errorf("application_type %v, want native", got)
	}
}

// TestOAuthISSCheck runs the RFC 9207 cases the conformance suite tries:
// an iss that is not the issuer's exact string is refused before the code
// is exchanged, advertised or not, and a missing iss is refused only where
// the authorization server said it sends one.
func TestOAuthISSCheck(t *testing.T) {
	cases := []struct {
		name      string
		supported bool
		iss       func(issuer string) string
		refused   string // "" when the login must succeed
	}{
		{"advertised and right", true, func(string) string { return "" }, ""},
		{"not advertised and missing", false, func(string) string { return oauthtest.ISSOmit }, ""},
		{"advertised and missing", true, func(string) string { return oauthtest.ISSOmit }, "lacks the issuer"},
		{"advertised and wrong", true, func(string) string { return "https://evil.example" }, `"https://evil.example"`},
		{"not advertised and wrong", false, func(string) string { return "https://evil.example" }, `"https://evil.example"`},
		{"a trailing slash", true, func(is string) string { return is + "/" }, "/\", not"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			as := oauthtest.New(oauthtest.Config{ISSSupported: c.supported})
			t.Cleanup(as.Close)
			as.SetISS(c.iss(as.AS.URL))
			m := oauthManager(t, as, t.TempDir(), nil)
			m.Connect("web") //nolint:errcheck // it needs a login first
			err := m.Login(context.Background(), "web")
			if c.refused == "" {
				if err != nil {
					t.Fatal(err)
				}
				callWhoami(t, m)
				return
			}
			if err == nil || !strings.Contains(err.Error(), "web") || !strings.Contains(err.Error(), c.refused) {
				t.Fatalf("login: %v, want it refused naming the server and %s", err, c.refused)
			}
			if as.PKCEVerified != 0 {
				t.Errorf("the code was exchanged (%d times) after a bad iss", as.PKCEVerified)
			}
			if st, _ := m.Status("web"); st.State == mcp.StateConnected {
				t.Errorf("connected after a refused login: %s", st.Summary())
			}
		})
	}
}

// TestOAuthServerMigration moves the resource to another authorization
// server (SEP-2352) after a login: latch asks for a new login, registers
// at the new issuer, and nothing of the first issuer's client or tokens
// ever reaches the second.
func TestOAuthServerMigration(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), nil)
	m.Connect("web") //nolint:errcheck // it needs a login first
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	first := as.Registrations[0]
	firstTokens := append([]string(nil), as.Tokens...)

	as.Migrate()
	if _, err := m.Call(context.Background(), "web__whoami", map[string]any{}, ""); err == nil {
		st, _ := m.Status("web")
		t.Fatalf("a call went through with the old issuer's credentials: %s", st.Summary())
	}
	if st, _ := m.Status("web"); !strings.Contains(st.Summary(), "authorization server is now "+as.AS2.URL) {
		t.Errorf("after the move: %s, want it to say the authorization server changed", st.Summary())
	}
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)

	last := as.Registrations[len(as.Registrations)-1]
	if last["_as"] != "as2" {
		t.Errorf("no registration at the new authorization server: %v", as.Registrations)
	}
	for _, req := range as.Seen["as2"] {
		for _, secret := range append(firstTokens, first["_client_id"].(string)) {
			if strings.Contains(req, secret) {
				t.Errorf("a credential of the first issuer (%s) reached the second:\n%s", secret, req)
			}
		}
	}
}

// TestOAuthServerMigrationWithoutRefresh: the resource moves to another
// authorization server right after a login whose server issued no
// refresh token (the conformance suite's authorization-server-migration:
// the first login's token is refused on the very next request). The
// status says where to log in now, and logging in there registers anew
// with the new server and gives it nothing of the first login.
func TestOAuthServerMigrationWithoutRefresh(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoRefresh: true})
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), nil)
	m.Connect("web") //nolint:errcheck // it needs a login first
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	first := as.Registrations[0]
	firstTokens := append([]string(nil), as.Tokens...)

	as.Migrate()
	if _, err := m.Call(context.Background(), "web__whoami", map[string]any{}, ""); err == nil {
		t.Fatal("a call went through with the old issuer's token")
	}
	if st, _ := m.Status("web"); !strings.Contains(st.Summary(), "authorization server is now "+as.AS2.URL) {
		t.Fatalf("after the move: %s, want it to say the authorization server changed", st.Summary())
	}
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	if last := as.Registrations[len(as.Registrations)-1]; last["_as"] != "as2" {
		t.Errorf("no registration at the new authorization server: %v", as.Registrations)
	}
	for _, req := range as.Seen["as2"] {
		for _, secret := range append(firstTokens, first["_client_id"].(string)) {
			if strings.Contains(req, secret) {
				t.Errorf("a credential of the first issuer (%s) reached the second:\n%s", secret, req)
			}
		}
	}
}
