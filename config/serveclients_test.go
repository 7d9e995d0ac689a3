package config

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// serve.clients reads each client's one token source, sorted by name,
// a token file's path as serve.token_file's is (relative to the config's
// folder); a rule's "client" is kept on the rule.
func TestLoadConfigServeClients(t *testing.T) {
	path, dir := writeConfig(t, `{"serve": {"clients": {
		"intern": {"token_env": "INTERN_TOKEN"},
		"ci-bot": {"token_file": "ci.token"},
		"laptop": {"token_command": ["pass", "latch/laptop"]}}},
		"permissions": {"rules": [{"tool": "*", "decision": "deny", "client": "intern"}]}}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	want := []ServeClient{{Name: "ci-bot", TokenFile: filepath.Join(dir, "ci.token")},
		{Name: "intern", TokenEnv: "INTERN_TOKEN"}, {Name: "laptop", TokenCommand: []string{"pass", "latch/laptop"}}}
	if !reflect.DeepEqual(cfg.Serve.Clients, want) {
		t.Errorf("clients: %+v\nwant     %+v", cfg.Serve.Clients, want)
	}
	if rs := cfg.Permissions.Rules; len(rs) != 1 || rs[0].Spec.Client != "intern" {
		t.Errorf("rules: %+v; want the rule's client kept", rs)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
}

// A rule whose client matches no key of serve.clients (a typo) is
// warned of, naming the rule.
func TestRuleClientMatchingNoClientIsWarned(t *testing.T) {
	path, dir := writeConfig(t, `{"serve": {"clients": {"ci-bot": {"token_env": "T"}}},
		"permissions": {"rules": [{"tool": "*", "decision": "allow", "client": "ci-*"},
			{"tool": "*", "decision": "deny", "client": "ci-bto"}]}}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	want := "permissions.rules[1].client: \"ci-bto\" matches no client of serve.clients"
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], want) {
		t.Errorf("warnings: %q; want one with %q", cfg.Warnings, want)
	}
}

func TestLoadConfigServeClientsErrors(t *testing.T) {
	tests := []struct{ name, body, field, want string }{
		{"no token", `{"serve": {"clients": {"ci": {}}}}`, "serve.clients.ci", "give one of token_env, token_file or token_command"},
		{"two tokens", `{"serve": {"clients": {"ci": {"token_env": "T", "token_file": "f"}}}}`, "serve.clients.ci",
			"give one of token_env, token_file or token_command"},
		{"a token as the name", `{"serve": {"clients": {"sk live 123": {"token_env": "T"}}}}`, "serve.clients",
			"a client's name has only the letters"},
		{"a token as token_env", `{"serve": {"clients": {"ci": {"token_env": "sk-live-123"}}}}`, "serve.clients.ci.token_env",
			"not a variable name"},
		{"unknown key", `{"serve": {"clients": {"ci": {"token": "x"}}}}`, "serve.clients.ci", `unknown key "token"`},
		{"not an object", `{"serve": {"clients": ["ci"]}}`, "serve.clients", "expected an object"},
		{"rule client empty", `{"permissions": {"rules": [{"tool": "*", "decision": "deny", "client": ""}]}}`,
			"permissions.rules[0].client", "must not be empty"},
		{"rule client not a glob", `{"permissions": {"rules": [{"tool": "*", "decision": "deny", "client": "ci bot"}]}}`,
			"permissions.rules[0].client", "a glob on clients' names"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, dir := writeConfig(t, tt.body)
			cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
			if err == nil {
				t.Fatalf("no error; config %+v", cfg)
			}
			if want := []string{"config " + path + ": ", tt.field + ": ", tt.want}; !anyLineHasAll(err.Error(), want) {
				t.Errorf("no error line has all of %q; got:\n%v", want, err)
			}
			for _, secret := range []string{"sk live 123", "sk-live-123"} {
				if strings.Contains(err.Error(), secret) {
					t.Errorf("the error echoes %q: %v", secret, err)
				}
			}
		})
	}
}

// A client's token file others may read is refused, naming the file and
// the fix, never the token; 0600 is read, trimmed.
func TestServeClientTokenFileMustBeTheOwners(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	f := filepath.Join(t.TempDir(), "ci.token")
	if err := os.WriteFile(f, []byte("tok-ci-0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(f, 0o644); err != nil {
		t.Fatal(err)
	}
	c := ServeClient{Name: "ci", TokenFile: f}
	_, err := c.Token(context.Background(), fakeEnv(nil))
	if err == nil || !strings.Contains(err.Error(), "serve.clients.ci.token_file: "+f+" may be read by others") ||
		!strings.Contains(err.Error(), "chmod 600") || strings.Contains(err.Error(), "tok-ci") {
		t.Errorf("a 0644 token file: %v; want refused, naming the file", err)
	}
	if err := os.Chmod(f, 0o600); err != nil {
		t.Fatal(err)
	}
	if tok, err := c.Token(context.Background(), fakeEnv(nil)); err != nil || tok != "tok-ci-0123456789" {
		t.Errorf("a 0600 token file: %q, %v", tok, err)
	}
}
