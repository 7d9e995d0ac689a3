package cli

import (
	"strings"
	"testing"

	"latch/config"
)

// TestEnterpriseConfig: grant "enterprise" reads the identity provider's
// fields into the server's config, and a missing or misplaced one is
// refused with an error naming the server and the field.
func TestEnterpriseConfig(t *testing.T) {
	const base = `"url": "https://wiki.example/mcp", "client_id": "latch", "client_secret_env": "S", `
	path, _ := writeConfig(t, `{"mcpServers": {"wiki": {`+base+`"grant": "enterprise",
		"idp_token_url": "https://idp.example/oauth2/token", "idp_client_id": "latch-idp",
		"idp_client_secret_env": "IDP", "id_token_command": ["idp-cli", "id-token"]}}}`)
	cfg, err := config.Load(path, envOf(map[string]string{"S": "x", "IDP": "y"}))
	if err != nil {
		t.Fatal(err)
	}
	s := serverConfigs(cfg.Servers)[0]
	if s.Grant != "enterprise" || s.IDPTokenURL != "https://idp.example/oauth2/token" || s.IDPClientID != "latch-idp" ||
		s.IDPClientSecretEnv != "IDP" || len(s.IDTokenCommand) != 2 {
		t.Fatalf("fields lost: %+v", s)
	}
	for _, c := range []struct{ body, want string }{
		{base + `"grant": "enterprise", "id_token_env": "T"`, `grant: "enterprise" needs idp_token_url`},
		{base + `"grant": "enterprise", "idp_token_url": "https://idp.example/t"`, "needs the person's ID token"},
		{base + `"grant": "enterprise", "idp_token_url": "http://idp.example/t", "id_token_env": "T"`, "idp_token_url: must be an https URL"},
		{base + `"grant": "enterprise", "idp_token_url": "https://idp.example/t", "id_token_env": "T", "id_token_file": "f"`, "use only one id_token source"},
		{base + `"grant": "enterprise", "idp_token_url": "https://idp.example/t", "id_token_env": "UNSET"`, "id_token_env: the environment variable named here is not set"},
		{base + `"grant": "enterprise", "idp_token_url": "https://idp.example/t", "id_token_env": "T", "idp_client_secret_env": "S"`, "idp_client_id: an identity provider client secret needs"},
		{base + `"grant": "enterprise", "idp_token_url": "https://idp.example/t", "id_token_command": []`, "id_token_command: must not be empty"},
		{`"url": "https://a.example/mcp", "grant": "enterprise", "idp_token_url": "https://idp.example/t", "id_token_env": "T"`, `grant: "enterprise" needs client_id and a client secret`},
		{base + `"idp_token_url": "https://idp.example/t"`, `idp_token_url: only for grant "enterprise"`},
		{`"command": "srv", "id_token_env": "T"`, "OAuth is only for url servers"},
	} {
		path, _ := writeConfig(t, `{"mcpServers": {"srv": {`+c.body+`}}}`)
		_, err := config.Load(path, envOf(map[string]string{"S": "x", "T": "y"}))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "srv") {
			t.Errorf("%s: got %v, want an error naming srv and saying %q", c.body, err, c.want)
		}
	}
	path, _ = writeConfig(t, `{"mcpServers": {"srv": {`+base+`"grant": "enterprise", "idp_token_url": "https://idp.example/t", "id_token": "eyJ.lit"}}}`)
	cfg, err = config.Load(path, envOf(map[string]string{"S": "x"}))
	if w := strings.Join(cfg.Warnings, "\n"); err != nil || !strings.Contains(w, "id_token: a literal secret") || strings.Contains(w, "eyJ.lit") {
		t.Errorf("a literal ID token: %v %q", err, cfg.Warnings)
	}
}
