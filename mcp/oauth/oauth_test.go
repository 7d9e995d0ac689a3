package oauth_test

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/mcp/oauthtest"
)

// oauthManager is a manager of one OAuth server "web" at as's MCP URL,
// keeping logins in dir.
func oauthManager(t *testing.T, as *oauthtest.Server, dir string, edit func(*mcp.ServerConfig, *mcp.Options)) *mcp.Manager {
	t.Helper()
	cfg := mcp.ServerConfig{Name: "web", Transport: mcp.TransportHTTP, URL: as.URL(), ConnectTimeout: 10 * time.Second}
	o := mcp.Options{OpenBrowser: oauthtest.Browse, AuthDir: dir}
	if edit != nil {
		edit(&cfg, &o)
	}
	m := mcp.New([]mcp.ServerConfig{cfg}, o)
	t.Cleanup(m.CloseAll)
	return m
}

// callWhoami calls the server's tool and wants it through.
func callWhoami(t *testing.T, m *mcp.Manager) {
	t.Helper()
	res, err := m.Call(context.Background(), "web__whoami", map[string]any{}, "")
	if err != nil || res.IsError || res.Text != "authorized" {
		t.Fatalf("call: %v %+v", err, res)
	}
}

// TestOAuthLoginDiscovery logs in with the resource metadata found in
// the 401's header, at the path's well-known URI and at the root's, with
// dynamic registration and PKCE checked by the server.
func TestOAuthLoginDiscovery(t *testing.T) {
	for _, prm := range []string{oauthtest.PRMInHeader, oauthtest.PRMPath, oauthtest.PRMRoot} {
		t.Run(prm, func(t *testing.T) {
			as := oauthtest.New(oauthtest.Config{PRM: prm})
			t.Cleanup(as.Close)
			m := oauthManager(t, as, t.TempDir(), nil)
			if err := m.Connect("web"); err == nil {
				t.Fatal("connected without a login")
			}
			st, _ := m.Status("web")
			if st.State != mcp.StateAuthExpired || !strings.Contains(st.Summary(), "/login web") {
				t.Fatalf("before the login: %s", st.Summary())
			}
			if err := m.Login(context.Background(), "web"); err != nil {
				t.Fatal(err)
			}
			callWhoami(t, m)
			if as.PKCEVerified != 1 {
				t.Errorf("PKCE verified %d times, want 1", as.PKCEVerified)
			}
		})
	}
}

// TestOAuthPreRegistered uses a configured client (its secret from a
// variable) where the server offers no registration.
func TestOAuthPreRegistered(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "latch-app", ClientSecret: "s3cret-client-value"})
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), func(c *mcp.ServerConfig, o *mcp.Options) {
		c.ClientID, c.ClientSecretEnv = "latch-app", "WEB_SECRET"
		o.Getenv = func(k string) string { return map[string]string{"WEB_SECRET": "s3cret-client-value"}[k] }
	})
	m.Connect("web") //nolint:errcheck // it needs a login first
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	if got := m.Redact("x s3cret-client-value"); strings.Contains(got, "s3cret") {
		t.Errorf("the client secret is not redacted: %q", got)
	}
}

// TestOAuthNoBrowser: without a browser (latch -p) a login fails at once,
// saying what to run.
func TestOAuthNoBrowser(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	// The connect timeout is an hour, and a login waits five minutes for
	// the browser: the two ending within the hang bound, saying what to
	// run, shows that neither waited.
	m := oauthManager(t, as, "", func(c *mcp.ServerConfig, o *mcp.Options) { o.OpenBrowser, c.ConnectTimeout = nil, time.Hour })
	var summary string
	done := make(chan error, 1)
	go func() {
		m.Connect("web") //nolint:errcheck // fails: not logged in
		st, _ := m.Status("web")
		summary = st.Summary()
		done <- m.Login(context.Background(), "web")
	}()
	var err error
	select {
	case err = <-done:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatalf("a connect and a login without a browser still waiting after %v", mcptestutil.HangBound(0))
	}
	if !strings.Contains(summary, "run latch, then /login web") {
		t.Errorf("summary %q does not say what to run", summary)
	}
	if err == nil || !strings.Contains(err.Error(), "run latch, then /login web") {
		t.Errorf("login without a browser: %v", err)
	}
}

// TestOAuthRefresh: a token refused (401) is refreshed and the call sent
// again; a refresh that fails moves the server to auth expired with the
// hint /login NAME.
func TestOAuthRefresh(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), nil)
	m.Connect("web") //nolint:errcheck // needs a login
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	as.Invalidate()
	callWhoami(t, m)
	if as.Refreshes != 1 {
		t.Fatalf("refreshes: %d, want 1", as.Refreshes)
	}
	as.Invalidate()
	as.FailRefresh = true
	if _, err := m.Call(context.Background(), "web__whoami", map[string]any{}, ""); err == nil {
		t.Fatal("the call went through with a refresh that failed")
	}
	st, _ := m.Status("web")
	if st.State != mcp.StateAuthExpired || !strings.Contains(st.Summary(), "/login web") || !strings.Contains(st.Summary(), "refresh failed") {
		t.Fatalf("after a failed refresh: %s", st.Summary())
	}
}

// TestOAuthExpiryRefreshesFirst: a token about to expire is refreshed
// before it is sent.
func TestOAuthExpiryRefreshesFirst(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{TTL: 30 * time.Second}) // within the refresh margin
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), nil)
	m.Connect("web") //nolint:errcheck // needs a login
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	if as.Refreshes == 0 {
		t.Fatal("a token 30 s from its expiry was sent without a refresh")
	}
}

// TestOAuthStepUp: a 403 insufficient_scope logs in again asking for the
// union of the scopes, once, and the call goes through.
func TestOAuthStepUp(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{CallScope: "write"})
	t.Cleanup(as.Close)
	m := oauthManager(t, as, t.TempDir(), nil)
	m.Connect("web") //nolint:errcheck // needs a login
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	callWhoami(t, m)
	if len(as.Scopes) != 2 || as.Scopes[0] != "read" || as.Scopes[1] != "read write" {
		t.Fatalf("authorization requests asked for %q, want [read] then [read write]", as.Scopes)
	}
}

// TestOAuthStoreAndLogout: the login is kept 0600 in a 0700 folder and
// used by the next manager; /logout revokes and deletes it.
func TestOAuthStoreAndLogout(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	dir := filepath.Join(t.TempDir(), "auth")
	m := oauthManager(t, as, dir, nil)
	m.Connect("web") //nolint:errcheck // needs a login
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "web.json")
	for p, want := range map[string]os.FileMode{dir: 0o700, file: 0o600} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v, mode %v, want %v", p, err, fi.Mode().Perm(), want)
		}
	}
	m.CloseAll()

	m2 := oauthManager(t, as, dir, nil)
	if err := m2.Connect("web"); err != nil {
		t.Fatalf("the stored login was not used: %v", err)
	}
	if st, _ := m2.Status("web"); !st.Login.LoggedIn || !strings.Contains(st.Login.LoginText(time.Now()), "token until") {
		t.Errorf("login info: %+v", st.Login)
	}
	if err := m2.Logout(context.Background(), "web"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the stored login is still there: %v", err)
	}
	if len(as.Revoked) != 2 {
		t.Errorf("revoked %d tokens, want the refresh and the access token", len(as.Revoked))
	}
	if st, _ := m2.Status("web"); st.State != mcp.StateClosed || st.Login.LoggedIn {
		t.Errorf("after logout: %s %+v", st.Summary(), st.Login)
	}
}

// TestOAuthLoginStrayCallback: a stray request to the login's loopback
// listener (another state, or an error with another state) is refused,
// and the login goes on to take the real callback.
func TestOAuthLoginStrayCallback(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	var strays []int
	m := oauthManager(t, as, t.TempDir(), func(_ *mcp.ServerConfig, o *mcp.Options) {
		o.OpenBrowser = func(ctx context.Context, authURL string) error {
			u, err := url.Parse(authURL)
			if err != nil {
				return err
			}
			redirect := u.Query().Get("redirect_uri")
			for _, q := range []string{"?state=stray", "?error=access_denied&state=stray"} {
				resp, err := http.Get(redirect + q)
				if err != nil {
					return err
				}
				_ = resp.Body.Close()
				strays = append(strays, resp.StatusCode)
			}
			return oauthtest.Browse(ctx, authURL)
		}
	})
	m.Connect("web") //nolint:errcheck // needs a login
	if err := m.Login(context.Background(), "web"); err != nil {
		t.Fatalf("a stray callback ended the login: %v", err)
	}
	callWhoami(t, m)
	if len(strays) != 2 || strays[0] != http.StatusBadRequest || strays[1] != http.StatusBadRequest {
		t.Errorf("the strays were answered %v, want 400 each", strays)
	}
}
