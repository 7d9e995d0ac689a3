package oauth

import (
	"net/url"
	"testing"
)

// TestPlainRemote: plain http crosses the network unless the host is this
// machine (localhost, 127.0.0.0/8, ::1); https never counts.
func TestPlainRemote(t *testing.T) {
	for raw, want := range map[string]bool{
		"http://evil.example/token":          true,
		"http://10.0.0.1:8080/":              true,
		"http://127.0.0.1.evil.example/":     true,
		"HTTP://evil.example/":               true,
		"https://evil.example/":              false,
		"http://localhost:3000/token":        false,
		"http://LOCALHOST./":                 false,
		"http://127.0.0.5/":                  false,
		"http://[::1]:8080/":                 false,
		"http://[::ffff:127.0.0.1]/callback": false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := PlainRemote(u); got != want {
			t.Errorf("PlainRemote(%s) = %v, want %v", raw, got, want)
		}
	}
}
