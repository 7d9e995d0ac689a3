package oauth

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"latch/mcp/oauthtest"
)

// getStatus GETs u and returns the answer's status (0: no answer).
func getStatus(u string) int {
	resp, err := http.Get(u)
	if err != nil {
		return 0
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// TestCallbackOnlyTheOne: the loopback listener refuses another path, a
// callback without the login's state (with a code, with an error, with
// none) and keeps waiting; the one with the state ends the login, and
// anything after it is refused.
func TestCallbackOnlyTheOne(t *testing.T) {
	cb, err := listenCallback()
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	cb.expect("good-state", "https://as.example", false)
	base := strings.TrimSuffix(cb.redirect, callbackPath)
	if c := getStatus(base + "/other?code=x&state=good-state"); c != http.StatusNotFound {
		t.Errorf("another path: %d, want 404", c)
	}
	for _, q := range []string{"?code=x&state=bad-state", "?error=access_denied&state=bad-state", "?code=x", "?error=access_denied", ""} {
		if c := getStatus(cb.redirect + q); c != http.StatusBadRequest {
			t.Errorf("callback%s: %d, want 400", q, c)
		}
	}
	if c := getStatus(cb.redirect + "?code=the-code&state=good-state"); c != http.StatusOK {
		t.Errorf("the login's own callback after the strays: %d, want 200", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if code, err := cb.wait(ctx); err != nil || code != "the-code" {
		t.Errorf("the login got %q, %v; want the code", code, err)
	}
	if c := getStatus(cb.redirect + "?code=x&state=good-state"); c == http.StatusOK {
		t.Error("a second callback was accepted")
	}

	cb2, err := listenCallback()
	if err != nil {
		t.Fatal(err)
	}
	defer cb2.close()
	cb2.expect("s2", "https://as.example", false)
	if c := getStatus(cb2.redirect + "?code=c2&state=s2&iss=https://evil.example"); c != http.StatusBadRequest {
		t.Errorf("another issuer (RFC 9207): %d, want 400", c)
	}
}

// TestCallbackErrorWithStateEndsLogin: the authorization server's own
// error answer (it carries the state) ends the login, saying why.
func TestCallbackErrorWithStateEndsLogin(t *testing.T) {
	cb, err := listenCallback()
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	cb.expect("s", "https://as.example", false)
	if c := getStatus(cb.redirect + "?error=access_denied&error_description=no+thanks&state=s"); c != http.StatusBadRequest {
		t.Errorf("an error answer: %d, want 400", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := cb.wait(ctx); err == nil || !strings.Contains(err.Error(), "the authorization server said access_denied: no thanks") {
		t.Errorf("the login ended with %v", err)
	}
}

// TestLoginStrayCallbacksUntilTimeLimit: a login that only ever gets
// callbacks for another state is not ended by them: it ends at its time
// limit, saying so and how many it refused.
func TestLoginStrayCallbacksUntilTimeLimit(t *testing.T) {
	old := loginTimeout
	loginTimeout = time.Second
	defer func() { loginTimeout = old }()
	as := oauthtest.New(oauthtest.Config{})
	t.Cleanup(as.Close)
	const strays = 3
	o := New(Config{Name: "web", URL: as.URL()}, Options{Browser: func(_ context.Context, authURL string) error {
		for range strays {
			getStatus(redirectOf(t, authURL) + "?code=forged&state=stray")
		}
		return nil
	}})
	// The server's 401 says where its authorization server is.
	resp, err := (&http.Client{Transport: o.Transport(http.DefaultTransport)}).Post(as.URL(), "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the server answered %d, want 401", resp.StatusCode)
	}
	err = o.Login(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no login within the time allowed (3 callbacks for another login were refused)") {
		t.Errorf("a login with only strays ended with %v", err)
	}
}

// redirectOf is the redirect_uri of an authorization URL.
func redirectOf(t *testing.T, authURL string) string {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("redirect_uri")
}

// TestCallbackAnswerReachesTheBrowser: the page that ends a login (logged
// in, or why not) reaches the browser every time: the listener closes
// after the answer is written, not while it is.
func TestCallbackAnswerReachesTheBrowser(t *testing.T) {
	for i := range 200 {
		cb, err := listenCallback()
		if err != nil {
			t.Fatal(err)
		}
		cb.expect("s", "https://as.example", false)
		q, want := "?code=c&state=s", http.StatusOK
		if i%2 == 1 {
			q, want = "?error=access_denied&state=s", http.StatusBadRequest
		}
		if c := getStatus(cb.redirect + q); c != want {
			t.Fatalf("callback %d: %d, want %d (the connection closed before the answer)", i, c, want)
		}
		cb.close()
	}
}
