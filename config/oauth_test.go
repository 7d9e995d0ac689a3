package config

import (
	"strings"
	"testing"
)

// TestOAuthConfig: the OAuth fields reach the server's config, and a
// wrong one is refused with an error naming the server and the field.
func TestOAuthConfig(t *testing.T) {
	path, _ := writeConfig(t, `{"mcpServers": {"wiki": {"url": "https://wiki.example/mcp", "auth": "oauth",
		"client_id": "latch", "client_secret_env": "WIKI_SECRET", "scopes": ["read", "write"],
		"client_metadata_url": "https://latch.example/client.json", "store": "memory", "dpop": true}}}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"WIKI_SECRET": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Servers[0]
	if s.Auth != "oauth" || s.ClientID != "latch" || s.ClientSecretEnv != "WIKI_SECRET" || len(s.Scopes) != 2 || s.Store != "memory" || !s.DPoP {
		t.Fatalf("fields lost: %+v", s)
	}
	for _, c := range []struct{ body, want string }{
		{`"url": "https://a.example/mcp", "auth": "sometimes"`, `auth: "sometimes" is not one of oauth, none`},
		{`"url": "https://a.example/mcp", "client_secret_env": "S"`, "client_id: a client secret or key needs the client_id"},
		{`"url": "https://a.example/mcp", "grant": "client_credentials", "client_id": "c"`, `grant: "client_credentials" needs client_id and a client secret`},
		{`"url": "https://a.example/mcp", "auth": "oauth", "token_env": "T"`, "does not log in with OAuth"},
		{`"url": "http://a.example/mcp", "auth": "oauth"`, "OAuth requires https"},
		{`"url": "https://a.example/mcp", "client_metadata_url": "http://x.example/c.json"`, "client_metadata_url: must be an https URL"},
		{`"command": "srv", "client_id": "c"`, "OAuth is only for url servers"},
		{`"url": "https://a.example/mcp", "dpop": "yes"`, "dpop: "},
		{`"url": "https://a.example/mcp", "grant": "workload", "client_id": "c"`, `grant: "workload" needs the workload's JWT`},
		{`"url": "https://a.example/mcp", "grant": "workload", "workload_token_env": "T"`, `"workload" needs client_id`},
		{`"url": "https://a.example/mcp", "client_id": "c", "workload_token_env": "T"`, `only for grant "workload"`},
	} {
		path, _ := writeConfig(t, `{"mcpServers": {"srv": {`+c.body+`}}}`)
		_, err := Load(path, fakeEnv(map[string]string{"S": "x", "T": "y"}))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "srv") {
			t.Errorf("%s: got %v, want an error naming srv and saying %q", c.body, err, c.want)
		}
	}
	path, _ = writeConfig(t, `{"mcpServers": {"srv": {"url": "https://a.example/mcp", "client_id": "c", "client_secret": "lit"}}}`)
	cfg, err = Load(path, fakeEnv(nil))
	if err != nil || len(cfg.Warnings) == 0 || !strings.Contains(strings.Join(cfg.Warnings, "\n"), "literal client secret") {
		t.Errorf("a literal client secret: %v %q", err, cfg.Warnings)
	}
}
