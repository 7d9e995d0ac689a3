package mcp

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestResolveToken(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh")
	}
	const secret = "SENTINEL-creds-42"
	dir := t.TempDir()
	file := filepath.Join(dir, "tok")
	os.WriteFile(file, []byte(secret+"\n"), 0o600)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o600)
	env := func(k string) string {
		if k == "TOK" {
			return secret + "\r\n"
		}
		return ""
	}
	old := tokenCommandTimeout
	tokenCommandTimeout = 300 * time.Millisecond
	defer func() { tokenCommandTimeout = old }()

	tests := []struct {
		name    string
		cfg     ServerConfig
		want    string
		wantErr string
	}{
		{"literal", ServerConfig{Token: secret}, secret, ""},
		{"env, newline trimmed", ServerConfig{TokenEnv: "TOK"}, secret, ""},
		{"env unset names the variable", ServerConfig{TokenEnv: "NOPE"}, "", "token_env: variable NOPE is not set"},
		{"file, newline trimmed", ServerConfig{TokenFile: file}, secret, ""},
		{"file missing names the path", ServerConfig{TokenFile: file + ".gone"}, "", "token_file: " + file + ".gone not found"},
		{"file empty", ServerConfig{TokenFile: empty}, "", "is empty"},
		{"command", ServerConfig{TokenCommand: []string{"sh", "-c", "echo " + secret}}, secret, ""},
		{"command fails: named, output not shown", ServerConfig{TokenCommand: []string{"sh", "-c", "echo " + secret + " >&2; echo " + secret + "; exit 5"}}, "", "token_command: sh failed (exit status 5)"},
		{"command times out", ServerConfig{TokenCommand: []string{"sh", "-c", "sleep 5"}}, "", "token_command: sh did not finish within 300ms"},
		{"command missing", ServerConfig{TokenCommand: []string{"/no/such/helper"}}, "", "token_command: cannot run /no/such/helper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveToken(context.Background(), tc.cfg, env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), secret) {
					t.Fatal("the error carries the secret")
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v", got, err)
			}
		})
	}
}

// A server whose credential cannot be read fails loudly, naming the source.
func TestMissingCredentialFailsTheServer(t *testing.T) {
	m := New([]ServerConfig{{Name: "crm", Transport: TransportHTTP, URL: "http://127.0.0.1:1/mcp", TokenEnv: "LATCH_NOT_SET_ANYWHERE"}},
		Options{Getenv: func(string) string { return "" }})
	defer m.CloseAll()
	m.Start()
	st := waitState(t, m, "crm", StateFailed, 5*time.Second)
	if !strings.Contains(st.Reason, "LATCH_NOT_SET_ANYWHERE") {
		t.Fatalf("reason %q", st.Reason)
	}
}
