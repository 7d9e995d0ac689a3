package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

const (
	entIDToken      = "idtok-SENTINEL-4f9c2a"
	entClientSecret = "as-secret-SENTINEL-77d1"
	entIDPSecret    = "idp-secret-SENTINEL-0b3e"
)

// enterpriseManager is a manager of "web" with grant enterprise against
// as: the client's secret and the identity provider's client secret in
// variables, the ID token in a file; no browser (as latch -p), since the
// grant needs none. Every event is kept in events. edit, if not nil,
// changes the config and options last.
func enterpriseManager(t *testing.T, as *oauthtest.Server, dir string, events *[]string, edit func(*mcp.ServerConfig, *mcp.Options)) *mcp.Manager {
	t.Helper()
	idFile := filepath.Join(t.TempDir(), "id_token")
	if err := os.WriteFile(idFile, []byte(entIDToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	return oauthManager(t, as, dir, func(c *mcp.ServerConfig, o *mcp.Options) {
		c.Grant, c.ClientID, c.ClientSecretEnv = mcp.GrantEnterprise, "latch-app", "WEB_SECRET"
		c.IDPTokenURL, c.IDPClientID, c.IDPClientSecretEnv, c.IDTokenFile = as.IDP.URL+"/token", "latch-idp", "IDP_SECRET", idFile
		o.Getenv = func(k string) string {
			return map[string]string{"WEB_SECRET": entClientSecret, "IDP_SECRET": entIDPSecret}[k]
		}
		o.OpenBrowser = nil
		o.OnEvent = func(e mcp.Event) {
			mu.Lock()
			defer mu.Unlock()
			*events = append(*events, fmt.Sprintf("%+v", e))
		}
		if edit != nil {
			edit(c, o)
		}
	})
}

// TestOAuthEnterprise: the ID token is exchanged at the identity provider
// for an ID-JAG, which the JWT bearer grant trades for the access token;
// it connects with no browser and no /login, and /servers names the
// identity provider.
func TestOAuthEnterprise(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "latch-app", ClientSecret: entClientSecret, IDToken: entIDToken})
	t.Cleanup(as.Close)
	var events []string
	m := enterpriseManager(t, as, t.TempDir(), &events, nil)
	if err := m.Connect("web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	if as.Exchanges != 1 || as.JWTBearers != 1 {
		t.Errorf("%d token exchanges and %d JWT bearer grants, want 1 and 1", as.Exchanges, as.JWTBearers)
	}
	st, _ := m.Status("web")
	idpHost := strings.TrimPrefix(as.IDP.URL, "http://")
	if text := st.Login.LoginText(st.Login.Until.Add(-1)); !strings.Contains(text, "as client latch-app through "+idpHost) {
		t.Errorf("/servers says %q", text)
	}
}

// TestOAuthEnterpriseSecrets: the ID token goes only to the identity
// provider, each ID-JAG only to the authorization server, the client's
// secret never to the identity provider, its secret never elsewhere; every
// one is redacted, and neither the ID token nor an ID-JAG is stored.
func TestOAuthEnterpriseSecrets(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "latch-app", ClientSecret: entClientSecret, IDToken: entIDToken})
	t.Cleanup(as.Close)
	dir := t.TempDir()
	var events []string
	m := enterpriseManager(t, as, dir, &events, nil)
	if err := m.Connect("web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	as.Invalidate() // the next call gets a token anew: a second exchange
	callWhoami(t, m)
	if as.Exchanges != 2 || as.JWTBearers != 2 {
		t.Errorf("%d token exchanges and %d JWT bearer grants after a refused token, want 2 and 2", as.Exchanges, as.JWTBearers)
	}
	var jags []string
	for _, tok := range as.Tokens {
		if strings.HasPrefix(tok, "jag-") {
			jags = append(jags, tok)
		}
	}
	stored, err := os.ReadFile(filepath.Join(dir, "web.json"))
	if err != nil || !strings.Contains(string(stored), "access_token") {
		t.Fatalf("the login is not stored: %v", err)
	}
	only := map[string][]string{"idp": {entIDToken, entIDPSecret}, "as": append([]string{entClientSecret}, jags...)}
	for where, secrets := range only {
		for _, s := range secrets {
			for _, other := range []string{"as", "idp", "mcp"} {
				if seen := strings.Join(as.Seen[other], "\n"); other != where && strings.Contains(seen, s) {
					t.Errorf("%.12s… was sent to %s, not only to %s", s, other, where)
				}
			}
			if !strings.Contains(strings.Join(as.Seen[where], "\n"), s) {
				t.Errorf("%.12s… never reached %s", s, where)
			}
			if strings.Contains(m.Redact("x "+s+" y"), s) {
				t.Errorf("%.12s… is not redacted", s)
			}
			if strings.Contains(string(stored), s) || strings.Contains(strings.Join(events, "\n"), s) {
				t.Errorf("%.12s… is stored or in an event", s)
			}
		}
	}
}

// TestOAuthEnterpriseRefused: an ID token the identity provider refuses
// leaves the server auth expired, saying why, with no secret in the words.
func TestOAuthEnterpriseRefused(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "latch-app", ClientSecret: entClientSecret, IDToken: "another-id-token"})
	t.Cleanup(as.Close)
	var events []string
	m := enterpriseManager(t, as, "", &events, nil)
	if err := m.Connect("web"); err == nil {
		t.Fatal("connected with a refused ID token")
	}
	st, _ := m.Status("web")
	const why = "the identity provider refused the token exchange: invalid_grant: unknown ID token"
	if st.State != mcp.StateAuthExpired || !strings.Contains(st.Summary(), why) {
		t.Errorf("status %q, want auth expired saying %q", st.Summary(), why)
	}
	err := m.Login(context.Background(), "web")
	if err == nil || !strings.Contains(err.Error(), why) {
		t.Errorf("login: %v", err)
	}
	if as.JWTBearers != 0 || strings.Contains(st.Summary()+fmt.Sprint(err)+strings.Join(events, "\n"), entIDToken) {
		t.Errorf("a JWT bearer grant without an ID-JAG, or the ID token shown")
	}
}

// TestOAuthEnterpriseNoRedirect: an identity provider answering with a
// redirect is not followed: the ID token never reaches the other origin.
func TestOAuthEnterpriseNoRedirect(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "latch-app", ClientSecret: entClientSecret, IDToken: entIDToken})
	t.Cleanup(as.Close)
	var mu sync.Mutex
	var stolen int
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		mu.Lock()
		stolen++
		mu.Unlock()
	}))
	t.Cleanup(evil.Close)
	as.IDP.Config.Handler = http.RedirectHandler(evil.URL+"/token", http.StatusTemporaryRedirect)
	var events []string
	m := enterpriseManager(t, as, "", &events, nil)
	if err := m.Connect("web"); err == nil {
		t.Fatal("connected through a redirected token exchange")
	}
	mu.Lock()
	defer mu.Unlock()
	if stolen != 0 {
		t.Errorf("the token exchange followed the redirect (%d requests to the other origin)", stolen)
	}
}

// TestOAuthEnterprisePlainHTTPIDP: an identity provider's token endpoint
// over plain http to another machine is refused before the ID token is
// sent, saying so; the server stays auth expired.
func TestOAuthEnterprisePlainHTTPIDP(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "latch-app", ClientSecret: entClientSecret, IDToken: entIDToken})
	t.Cleanup(as.Close)
	var pn plainNet
	var events []string
	m := enterpriseManager(t, as, "", &events, func(c *mcp.ServerConfig, o *mcp.Options) {
		c.IDPTokenURL = "http://evil.example/oauth2/token"
		o.OAuthHTTP = pn.client(t)
	})
	if err := m.Connect("web"); err == nil {
		t.Fatal("connected through a plain http identity provider")
	}
	err := m.Login(context.Background(), "web")
	const why = `its idp_token_url is http://evil.example, plain http to another machine: it would send your ID token and the identity provider's client secret in clear: refused`
	if err == nil || !strings.Contains(err.Error(), why) || !strings.Contains(err.Error(), `server "web"`) {
		t.Errorf("login: %v, want it to say %q", err, why)
	}
	if st, _ := m.Status("web"); st.State != mcp.StateAuthExpired || !strings.Contains(st.Summary(), "idp_token_url") {
		t.Errorf("status: %s", st.Summary())
	}
	if seen := pn.requests(); len(seen) != 0 || as.Exchanges != 0 {
		t.Errorf("the ID token went out: %q, %d exchanges", seen, as.Exchanges)
	}
}
