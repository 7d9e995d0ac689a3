package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	tokens, err := newTokenTable("s3cr3t", nil)
	if err != nil {
		t.Fatal(err)
	}
	h := guard(ok, "127.0.0.1:4567", "127.0.0.1:0", tokens)
	for _, c := range []struct {
		name, host, origin, auth string
		want                     int
	}{
		{"right token", "127.0.0.1:4567", "", "Bearer s3cr3t", http.StatusNoContent},
		{"localhost", "localhost:4567", "http://localhost:4567", "Bearer s3cr3t", http.StatusNoContent},
		{"ipv6 loopback", "[::1]:4567", "", "Bearer s3cr3t", http.StatusNoContent},
		{"no token", "127.0.0.1:4567", "", "", http.StatusUnauthorized},
		{"wrong token", "127.0.0.1:4567", "", "Bearer s3cr3t2", http.StatusUnauthorized},
		{"token prefix", "127.0.0.1:4567", "", "Bearer s3cr", http.StatusUnauthorized},
		{"not Bearer", "127.0.0.1:4567", "", "s3cr3t", http.StatusUnauthorized},
		{"rebound Host", "evil.example:4567", "", "Bearer s3cr3t", http.StatusForbidden},
		{"other port", "127.0.0.1:80", "", "Bearer s3cr3t", http.StatusForbidden},
		{"foreign Origin", "127.0.0.1:4567", "http://evil.example", "Bearer s3cr3t", http.StatusForbidden},
		{"null Origin", "127.0.0.1:4567", "null", "Bearer s3cr3t", http.StatusForbidden},
	} {
		req := httptest.NewRequest("POST", "/mcp", nil)
		req.Host = c.host
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != c.want {
			t.Errorf("%s: %d, want %d", c.name, rec.Code, c.want)
		}
		if strings.Contains(rec.Body.String(), "s3cr") && c.want != http.StatusNoContent {
			t.Errorf("%s: the answer echoes the token: %q", c.name, rec.Body.String())
		}
	}
}

func TestCheckBind(t *testing.T) {
	for _, c := range []struct {
		o    HTTPOptions
		want string // "" when it may listen
	}{
		{HTTPOptions{Addr: "127.0.0.1:1", Token: "t"}, ""},
		{HTTPOptions{Addr: "localhost:1", Token: "t"}, ""},
		{HTTPOptions{Addr: "127.0.0.1:1"}, "bearer token"},
		{HTTPOptions{Addr: "nonsense", Token: "t"}, "not HOST:PORT"},
		{HTTPOptions{Addr: "0.0.0.0:1", Token: "t"}, "serve.allow_remote"},
		{HTTPOptions{Addr: ":1", Token: "t"}, "serve.allow_remote"},
		{HTTPOptions{Addr: "0.0.0.0:1", Token: "t", AllowRemote: true}, "needs TLS"},
		{HTTPOptions{Addr: "0.0.0.0:1", Token: "t", AllowRemote: true, TLSCert: "c", TLSKey: "k"}, ""},
	} {
		err := CheckBind(c.o)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.o, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: %v, want one saying %q", c.o, err, c.want)
		}
	}
}

// serve.inbox_ssh's address follows --listen's allow_remote rule (SSH
// needs no TLS: it is encrypted already).
func TestCheckRemote(t *testing.T) {
	for _, c := range []struct {
		addr  string
		allow bool
		want  string
	}{
		{"127.0.0.1:2222", false, ""},
		{"[::1]:2222", false, ""},
		{"localhost:2222", false, ""},
		{"0.0.0.0:2222", false, "serve.inbox_ssh.listen 0.0.0.0:2222: not a loopback address; serving other machines needs serve.allow_remote: true"},
		{":2222", false, "serve.allow_remote"},
		{"0.0.0.0:2222", true, ""},
		{"2222", true, "not HOST:PORT"},
	} {
		err := CheckRemote("serve.inbox_ssh.listen", c.addr, c.allow)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s (allow_remote %v): %v", c.addr, c.allow, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s (allow_remote %v): %v, want one saying %q", c.addr, c.allow, err, c.want)
		}
	}
}
