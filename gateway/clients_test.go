package gateway

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

const (
	sharedTok = "shared-0123456789abcdef"
	ciTok     = "ci-0123456789abcdef"
	internTok = "intern-0123456789abcdef"
)

// clientsFile is a file of client name → token, read by the returned
// ClientTokens as latch serve reads serve.clients (the config's content
// deciding): writing it again is editing the config.
func clientsFile(t *testing.T, tokens map[string]string) (string, *ClientTokens, *atomic.Int32) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "clients.json")
	writeClients(t, path, tokens)
	var errs atomic.Int32
	return path, &ClientTokens{
		Load: func() (map[string]string, []string, error) {
			b, err := os.ReadFile(path)
			if err != nil {
				return nil, []string{path}, err
			}
			var m map[string]string
			if err := json.Unmarshal(b, &m); err != nil {
				return nil, []string{path}, errors.New("clients.json is not valid JSON")
			}
			return m, []string{path}, nil
		},
		OnError: func(error) { errs.Add(1) },
	}, &errs
}

func writeClients(t *testing.T, path string, tokens map[string]string) {
	t.Helper()
	b, _ := json.Marshal(tokens)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// clientGuard is guard with the shared token and src, before a handler
// that answers 200 with the name of the client the request's token named.
func clientGuard(t *testing.T, src *ClientTokens) http.Handler {
	t.Helper()
	tokens, err := newTokenTable(sharedTok, src)
	if err != nil {
		t.Fatal(err)
	}
	who := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, _ := r.Context().Value(callerKey{}).(string)
		_, _ = io.WriteString(w, "client="+name)
	})
	return guard(who, "127.0.0.1:4567", "127.0.0.1:0", tokens)
}

// send sends a request to h with the Authorization headers given (each
// its own header line) to target, and returns the status and body.
func send(h http.Handler, target string, auth ...string) (int, string) {
	req := httptest.NewRequest("POST", target, strings.NewReader("{}"))
	req.Host = "127.0.0.1:4567"
	for _, a := range auth {
		req.Header.Add("Authorization", a)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// Each client's own token names it; the shared token names none. Every
// way of presenting a token other than the one header with one whole
// token is refused, and no refusal echoes what was sent.
func TestGuardNamesTheClientByItsToken(t *testing.T) {
	_, src, _ := clientsFile(t, map[string]string{"ci-bot": ciTok, "intern": internTok})
	h := clientGuard(t, src)
	for _, c := range []struct {
		name, target string
		auth         []string
		code         int
		body         string
	}{
		{"ci-bot's token", "/mcp", []string{"Bearer " + ciTok}, 200, "client=ci-bot"},
		{"intern's token", "/mcp", []string{"Bearer " + internTok}, 200, "client=intern"},
		{"the shared token", "/mcp", []string{"Bearer " + sharedTok}, 200, "client="},
		{"a prefix of a token", "/mcp", []string{"Bearer " + ciTok[:len(ciTok)-1]}, 401, "Unauthorized"},
		{"a token and more", "/mcp", []string{"Bearer " + ciTok + "0"}, 401, "Unauthorized"},
		{"two headers", "/mcp", []string{"Bearer " + internTok, "Bearer " + ciTok}, 401, "Unauthorized"},
		{"two tokens in one header", "/mcp", []string{"Bearer " + internTok + ", Bearer " + ciTok}, 401, "Unauthorized"},
		{"two tokens with a space", "/mcp", []string{"Bearer " + ciTok + " " + internTok}, 401, "Unauthorized"},
		{"no scheme", "/mcp", []string{ciTok}, 401, "Unauthorized"},
		{"in the URL", "/mcp?access_token=" + ciTok, nil, 400, "a token in the URL is refused"},
		{"in the URL too", "/mcp?token=" + ciTok, []string{"Bearer " + ciTok}, 400, "a token in the URL is refused"},
	} {
		code, body := send(h, c.target, c.auth...)
		if code != c.code || !strings.Contains(body, c.body) {
			t.Errorf("%s: %d %q; want %d %q", c.name, code, body, c.code, c.body)
		}
		for _, tok := range []string{ciTok[:8], internTok[:8], sharedTok[:8]} {
			if code != 200 && strings.Contains(body, tok) {
				t.Errorf("%s: the refusal echoes a token: %q", c.name, body)
			}
		}
	}
}

// A client's token removed from the config is refused from the next
// request on, without a restart; the others go on. A config that cannot
// be read refuses every named client (said once), never the shared
// token, until it is fixed.
func TestGuardRefusesARemovedTokenAtOnce(t *testing.T) {
	path, src, errs := clientsFile(t, map[string]string{"ci-bot": ciTok, "intern": internTok})
	h := clientGuard(t, src)
	if code, _ := send(h, "/mcp", "Bearer "+internTok); code != 200 {
		t.Fatalf("intern before: %d", code)
	}
	writeClients(t, path, map[string]string{"ci-bot": ciTok})
	if code, _ := send(h, "/mcp", "Bearer "+internTok); code != 401 {
		t.Errorf("intern's token once removed: %d, want 401", code)
	}
	if code, body := send(h, "/mcp", "Bearer "+ciTok); code != 200 || body != "client=ci-bot" {
		t.Errorf("ci-bot's token, kept: %d %q", code, body)
	}
	if err := os.WriteFile(path, []byte(`{"ci-bot": `), 0o600); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if code, _ := send(h, "/mcp", "Bearer "+ciTok); code != 401 {
			t.Errorf("ci-bot with the config broken: %d, want 401", code)
		}
	}
	if n := errs.Load(); n != 1 {
		t.Errorf("the broken config was said %d times, want once", n)
	}
	if code, body := send(h, "/mcp", "Bearer "+sharedTok); code != 200 || body != "client=" {
		t.Errorf("the shared token with the config broken: %d %q", code, body)
	}
	writeClients(t, path, map[string]string{"ci-bot": ciTok, "intern": internTok})
	if code, body := send(h, "/mcp", "Bearer "+internTok); code != 200 || body != "client=intern" {
		t.Errorf("intern's token once back: %d %q", code, body)
	}
}

// Two clients with one token, or a client with the shared token, stop
// latch serve before it listens, naming both and not the token.
func TestClientTokensMustDiffer(t *testing.T) {
	for _, c := range []struct {
		tokens map[string]string
		want   string
	}{
		{map[string]string{"a": ciTok, "b": ciTok}, "serve.clients.b has the same token as serve.clients.a"},
		{map[string]string{"a": sharedTok}, "serve.clients.a has the same token as the shared token"},
	} {
		_, src, _ := clientsFile(t, c.tokens)
		err := CheckBind(HTTPOptions{Addr: "127.0.0.1:0", Token: sharedTok, Clients: src})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), ciTok) || strings.Contains(err.Error(), sharedTok) {
			t.Errorf("%v: %v; want %q", c.tokens, err, c.want)
		}
	}
}

// BenchmarkGuardTokens compares a request through the guard with the
// shared token alone and with named clients (whose config is stat'ed on
// every request, and hashed only while it is too new for its stat to be
// trusted: clients_fresh, a file just written): run it with -bench
// GuardTokens and compare them as ratios.
func BenchmarkGuardTokens(b *testing.B) {
	path := filepath.Join(b.TempDir(), "clients.json")
	data, _ := json.Marshal(map[string]string{"ci-bot": ciTok, "intern": internTok})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	src := &ClientTokens{Load: func() (map[string]string, []string, error) {
		var m map[string]string
		b, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		return m, []string{path}, err
	}}
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	for _, c := range []struct {
		name  string
		src   *ClientTokens
		tok   string
		fresh bool
	}{{"shared", nil, sharedTok, false}, {"clients_fresh", src, ciTok, true}, {"clients", src, ciTok, false}} {
		racyWindow = 2 * time.Second
		if !c.fresh {
			racyWindow = -time.Hour // as a config written long ago
		}
		tokens, err := newTokenTable(sharedTok, c.src)
		if err != nil {
			b.Fatal(err)
		}
		h := guard(ok, "127.0.0.1:4567", "127.0.0.1:0", tokens)
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if code, _ := send(h, "/mcp", "Bearer "+c.tok); code != 200 {
					b.Fatal(code)
				}
			}
		})
	}
}
