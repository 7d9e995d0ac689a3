package oauth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"latch/mcp"
	"latch/mcp/oauthtest"
)

// plainNet is the network as the authorization servers' client sees it,
// with a machine elsewhere, evil.example, reached over plain http: every
// request that reaches it is kept.
type plainNet struct {
	mu   sync.Mutex
	seen []string // requests that reached evil.example
}

// client is an HTTP client that reaches evil.example (through a proxy
// that records) and everything else directly.
func (n *plainNet) client(t *testing.T) *http.Client {
	t.Helper()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.mu.Lock()
		n.seen = append(n.seen, r.Method+" "+r.URL.String())
		n.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(evil.Close)
	proxy, _ := url.Parse(evil.URL)
	tr := &http.Transport{Proxy: func(r *http.Request) (*url.URL, error) {
		if r.URL.Hostname() == "evil.example" {
			return proxy, nil
		}
		return nil, nil
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

func (n *plainNet) requests() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.seen...)
}

// TestOAuthRefusesPlainHTTPEndpoints: an authorization server (or the
// resource's metadata, or the 401) naming a plain http URL on another
// machine is refused before the browser is opened and before anything is
// sent there, saying which server, which field, where, and why.
func TestOAuthRefusesPlainHTTPEndpoints(t *testing.T) {
	for _, tc := range []struct{ field, url, why string }{
		{"authorization_endpoint", "http://evil.example/authorize", "the browser would open the login page in clear"},
		{"token_endpoint", "http://evil.example/token", "the authorization code, the PKCE verifier and the client secret in clear"},
		{"registration_endpoint", "http://evil.example/register", "the client secret it answers, would travel in clear"},
		{"revocation_endpoint", "http://evil.example/revoke", "the tokens and the client secret in clear"},
		{"authorization_servers", "http://evil.example", "would travel in clear"},
		{"resource_metadata", "http://evil.example/prm", "would travel in clear"},
	} {
		t.Run(tc.field, func(t *testing.T) {
			as := oauthtest.New(oauthtest.Config{URLs: map[string]string{tc.field: tc.url}})
			t.Cleanup(as.Close)
			var pn plainNet
			var mu sync.Mutex
			var opened []string
			// Bounds a login that would wait for a callback that never comes.
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			m := oauthManager(t, as, t.TempDir(), func(_ *mcp.ServerConfig, o *mcp.Options) {
				o.OAuthHTTP = pn.client(t)
				o.OpenBrowser = func(bctx context.Context, u string) error {
					mu.Lock()
					opened = append(opened, u)
					mu.Unlock()
					return oauthtest.Browse(bctx, u)
				}
			})
			m.Connect("web") //nolint:errcheck // needs a login
			err := m.Login(ctx, "web")
			if err == nil {
				t.Fatalf("logged in with %s %s", tc.field, tc.url)
			}
			t.Log(err)
			for _, want := range []string{`server "web"`, tc.field + " is http://evil.example,", "plain http to another machine", tc.why, "refused"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q: %v", want, err)
				}
			}
			if strings.Contains(err.Error(), "/authorize") || strings.Contains(err.Error(), "/token") {
				t.Errorf("the error shows more of the URL than its scheme and host: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(opened) != 0 {
				t.Errorf("the browser was opened: %q", opened)
			}
			if seen := pn.requests(); len(seen) != 0 {
				t.Errorf("requests went to evil.example: %q", seen)
			}
		})
	}
}

// TestOAuthPlainHTTPRedirectRefused: an authorization server whose
// metadata URL redirects to plain http on another machine is not
// followed there, and the login says so.
func TestOAuthPlainHTTPRedirectRefused(t *testing.T) {
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	metadata := as.AS.Config.Handler
	as.AS.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/.well-known/") {
			http.Redirect(w, r, "http://evil.example"+r.URL.Path, http.StatusFound)
			return
		}
		metadata.ServeHTTP(w, r)
	})
	var pn plainNet
	m := oauthManager(t, as, t.TempDir(), func(_ *mcp.ServerConfig, o *mcp.Options) { o.OAuthHTTP = pn.client(t) })
	m.Connect("web") //nolint:errcheck // needs a login
	err := m.Login(context.Background(), "web")
	const want = `redirected to http://evil.example, plain http to another machine: refused`
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), `server "web"`) {
		t.Errorf("login: %v, want it to say %q", err, want)
	}
	if seen := pn.requests(); len(seen) != 0 {
		t.Errorf("requests went to evil.example: %q", seen)
	}
}
