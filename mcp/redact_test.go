package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// Credentials of three servers the hostile one is not: a literal token,
// a token_env variable's value and a literal Authorization header. The
// hostile server knows them (an attacker who saw them elsewhere) and
// plants them; latch must hide all of them, not only the hostile
// server's own.
const (
	litSecret    = "literal-secret-AAAA1111"
	envSecret    = "env-secret-BBBB2222"
	headerSecret = "header-secret-CCCC3333"
)

func hostileManager(t *testing.T, plant string, o Options) (*Manager, *events) {
	t.Helper()
	o.Getenv = func(k string) string {
		if k == "OTHER_TOKEN" {
			return envSecret + " \n" // sent trimmed, so redacted trimmed
		}
		return ""
	}
	cfgs := []ServerConfig{
		{Name: "hostile", Transport: TransportInProcess, InProcess: mcptestutil.HostileServer(plant, 4096)},
		{Name: "lit", Transport: TransportHTTP, URL: "https://lit.example/mcp", Token: litSecret, Disabled: true},
		{Name: "env", Transport: TransportHTTP, URL: "https://env.example/mcp", TokenEnv: "OTHER_TOKEN", Disabled: true},
		{Name: "hdr", Transport: TransportHTTP, URL: "https://hdr.example/mcp", Disabled: true,
			Headers: map[string]string{"Authorization": "Bearer " + headerSecret}},
	}
	m, ev := startFake(t, o, cfgs...)
	waitReady(t, m, "hostile", 10*time.Second)
	return m, ev
}

// noSecret fails the test if s holds any of the three credentials.
func noSecret(t *testing.T, where, s string) {
	t.Helper()
	for _, x := range []string{litSecret, envSecret, headerSecret} {
		if strings.Contains(s, x) {
			t.Errorf("%s leaks %q: %.300q", where, x, s)
		}
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRedactionCoversEveryCredential(t *testing.T) {
	plant := litSecret + " " + envSecret + " " + headerSecret
	m, ev := hostileManager(t, plant, Options{})
	ctx := context.Background()

	res, err := m.Call(ctx, "hostile__leak", nil, "c1")
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "result text", res.Text)
	noSecret(t, "structured result", jsonOf(res.Structured))
	if !strings.Contains(res.Text, "result "+redacted) {
		t.Errorf("result not redacted in place: %q", res.Text)
	}

	_, err = m.Call(ctx, "hostile__fail_rpc", nil, "c2")
	if err == nil {
		t.Fatal("fail_rpc did not fail")
	}
	noSecret(t, "JSON-RPC error", err.Error())

	res, err = m.Call(ctx, "hostile__fail_tool", nil, "c3")
	if err != nil || !res.IsError {
		t.Fatalf("fail_tool: %v %+v", err, res)
	}
	noSecret(t, "tool error", res.Text)

	if _, err = m.Call(ctx, "hostile__progress", nil, "c4"); err != nil {
		t.Fatal(err)
	}
	var progress, logs int
	for _, e := range eventList(ev) {
		noSecret(t, fmt.Sprintf("event %T", e), jsonOf(e))
		switch e := e.(type) {
		case Progress:
			progress++
			if !strings.Contains(e.Message, redacted) {
				t.Errorf("progress message not redacted: %q", e.Message)
			}
		case LogLine:
			logs++
		}
	}
	if progress == 0 || logs == 0 {
		t.Fatalf("saw %d progress and %d log events", progress, logs)
	}
	lines, _ := m.Logs("hostile")
	noSecret(t, "server log", strings.Join(lines, "\n"))
	noSecret(t, "tools", jsonOf(m.Tools()))
	noSecret(t, "statuses", jsonOf(m.Statuses()))
}

// A server that pads its result so the 1 MiB cut falls inside a secret
// must not get the secret's first part through: redact, then cut.
func TestRedactThenCut(t *testing.T) {
	m, _ := hostileManager(t, litSecret, Options{MaxResultBytes: 4096})
	res, err := m.Call(context.Background(), "hostile__pad", nil, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated {
		t.Fatalf("not cut: %d bytes", len(res.Text))
	}
	for k := minSecretPrefix; k < len(litSecret); k++ {
		if strings.Contains(res.Text, litSecret[:k]) {
			t.Fatalf("the cut left %q of the secret", litSecret[:k])
		}
	}
}

func TestRedactorCut(t *testing.T) {
	r := newRedactor("abcdefgh")
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"0123abcdefgh", 9, "0123"},      // "abcde" would be left
		{"0123abcXYZ", 7, "0123abc"},     // 3 characters: under the minimum
		{"012345678", 20, "012345678"},   // no cut
		{"01234567éé", 9, "01234567"},    // never half a character
		{"0123abcdZZZZ", 8, "0123"},      // exactly the minimum prefix
		{"0123abcdZZZZ", 7, "0123abc"},   // one less
		{"xxabcdefgh", 10, "xxabcdefgh"}, // not cut at all: no prefix check
	} {
		if got := r.cut(c.in, c.max); got != c.want {
			t.Errorf("cut(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestRedactedErrorKeepsItsKind(t *testing.T) {
	r := newRedactor("tok-123456")
	err := r.redactError(fmt.Errorf("%w: srv said tok-123456", ErrNotConnected))
	if strings.Contains(err.Error(), "tok-123456") || !errors.Is(err, ErrNotConnected) {
		t.Fatalf("got %v (is ErrNotConnected: %v)", err, errors.Is(err, ErrNotConnected))
	}
	if errors.Unwrap(err) != ErrNotConnected {
		t.Fatal("the original error, secret and all, is reachable")
	}
}

// A token file whose token ends in a space: the header carries the token
// trimmed, so the redactor must look for it trimmed too.
func TestTokenFileTrailingSpaceRedacted(t *testing.T) {
	srv := newAuthServer(t, "tok-space-7777")
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("tok-space-7777 \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: srv.URL + "/mcp", TokenFile: file}}, Options{})
	t.Cleanup(m.CloseAll)
	if err := m.Connect("crm"); err != nil {
		t.Fatal(err)
	}
	res, err := m.Call(context.Background(), "crm__whoami", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Text, "tok-space-7777") || !strings.Contains(res.Text, redacted) {
		t.Fatalf("echo not redacted: %q", res.Text)
	}
}

// TestSetTokenRefusedForStdio: a token given to a stdio server would be
// taken and never sent; it is refused, and the server is not reconnected.
func TestSetTokenRefusedForStdio(t *testing.T) {
	m := New([]ServerConfig{{Name: "local", Transport: TransportStdio, Command: "/nonexistent/x", Disabled: true}}, Options{})
	defer m.CloseAll()
	err := m.SetToken("local", "tok-stdio-1234")
	if err == nil || !strings.Contains(err.Error(), "only sent to HTTP servers") || strings.Contains(err.Error(), "tok-stdio") {
		t.Fatalf("SetToken on a stdio server: %v", err)
	}
	if st, _ := m.Status("local"); st.State != StateDisabled {
		t.Fatalf("the server moved to %v", st.State)
	}
}

// TestRedactLabels: a secret shows as its label; every byte of secrets
// that overlap is hidden; a label is never searched again, so a short
// secret found inside another's label does not mangle it.
func TestRedactLabels(t *testing.T) {
	r := newRedactor("abcdef-token")
	r.addLabeled("hunter2-word", "«your password for vault's form field code»")
	r.addLabeled("form", "«your password for a field of x's form»")
	r.addLabeled("zzabcd", "«z»")
	for in, want := range map[string]string{
		"code hunter2-word sent":   "code «your password for vault's form field code» sent",
		"t=abcdef-token":           "t=[redacted]",
		"zzabcdef-token!":          "«z»[redacted]!",
		"the form field":           "the «your password for a field of x's form» field",
		"hunter2-wordabcdef-token": "«your password for vault's form field code»[redacted]",
		"nothing here":             "nothing here",
	} {
		if got := r.apply(in); got != want {
			t.Errorf("apply(%q) = %q, want %q", in, got, want)
		}
	}
	r.addLabeled("abcdef-token", "«another label»")
	if got := r.apply("abcdef-token"); got != "[redacted]" {
		t.Errorf("a known secret took a second label: %q", got)
	}
}
