package mcp

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestCallbackOnlyTheOne: the loopback listener refuses another path
// (and keeps waiting), a wrong state (and ends the login), and anything
// after the one callback.
func TestCallbackOnlyTheOne(t *testing.T) {
	get := func(u string) int {
		resp, err := http.Get(u)
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	cb, err := listenCallback()
	if err != nil {
		t.Fatal(err)
	}
	defer cb.close()
	cb.expect("good-state", "https://as.example", false)
	base := strings.TrimSuffix(cb.redirect, callbackPath)
	if c := get(base + "/other?code=x&state=good-state"); c != http.StatusNotFound {
		t.Errorf("another path: %d, want 404", c)
	}
	if c := get(cb.redirect + "?code=x&state=bad-state"); c != http.StatusBadRequest {
		t.Errorf("a wrong state: %d, want 400", c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := cb.wait(ctx); err == nil || !strings.Contains(err.Error(), "state") {
		t.Errorf("a wrong state gave %v", err)
	}
	if c := get(cb.redirect + "?code=x&state=good-state"); c == http.StatusOK {
		t.Error("a second callback was accepted")
	}

	cb2, err := listenCallback()
	if err != nil {
		t.Fatal(err)
	}
	defer cb2.close()
	cb2.expect("s2", "https://as.example", false)
	if c := get(cb2.redirect + "?code=c2&state=s2&iss=https://evil.example"); c != http.StatusBadRequest {
		t.Errorf("another issuer (RFC 9207): %d, want 400", c)
	}
}
