package session_test

import (
	"testing"

	"github.com/ollama/ollama/envconfig"

	"latch/session"
)

// TestParseHost checks the table below: OLLAMA_HOST is read the way
// Ollama's own client reads it.
func TestParseHost(t *testing.T) {
	t.Parallel()
	for _, tt := range hostTests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			u := session.ParseHost(tt.in)
			if got := u.String(); got != tt.want {
				t.Errorf("ParseHost(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if u.Path != tt.path {
				t.Errorf("ParseHost(%q).Path = %q, want %q", tt.in, u.Path, tt.path)
			}
		})
	}
}

var hostTests = []struct {
	in, want string
	path     string
}{
	{"", "http://127.0.0.1:11434", ""},
	{"  ", "http://127.0.0.1:11434", ""},
	{"localhost", "http://localhost:11434", ""},
	{"myhost:1234", "http://myhost:1234", ""},
	{"http://myhost", "http://myhost:80", ""},
	{"https://h", "https://h:443", ""},
	{"https://h:8443", "https://h:8443", ""},
	{"0.0.0.0", "http://0.0.0.0:11434", ""},
	{"0.0.0.0:11435", "http://0.0.0.0:11435", ""},
	{"http://h:11434/proxy", "http://h:11434/proxy", "proxy"},
	{"ollama.com", "https://ollama.com:443", ""},
	{"[::1]:5000", "http://[::1]:5000", ""},
	{"::1", "http://[::1]:11434", ""},
	{`"localhost:1234"`, "http://localhost:1234", ""},
	{"myhost:99999", "http://myhost:11434", ""},
}

// TestParseHostMatchesOllama checks ParseHost against Ollama's own reading of
// OLLAMA_HOST (envconfig.Host), which the api client uses.
func TestParseHostMatchesOllama(t *testing.T) {
	for _, tt := range hostTests {
		t.Setenv("OLLAMA_HOST", tt.in)
		want := envconfig.Host()
		if got := session.ParseHost(tt.in); *got != *want {
			t.Errorf("ParseHost(%q) = %#v, Ollama reads %#v", tt.in, got, want)
		}
	}
}
