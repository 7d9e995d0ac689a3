package cli

import (
	"strings"
	"testing"

	"latch/config"
)

func TestServeTokenNeverInErrors(t *testing.T) {
	s := &settings{cfg: &config.Config{Serve: config.ServeConfig{TokenEnv: "MY_TOKEN"}}, getenv: envOf(map[string]string{})}
	if _, err := serveToken(s); err == nil || !strings.Contains(err.Error(), "$MY_TOKEN is not set") {
		t.Errorf("unset token_env: %v", err)
	}
	s.getenv = envOf(map[string]string{"MY_TOKEN": " s3cret \n", "LATCH_SERVE_TOKEN": "other"})
	if tok, err := serveToken(s); err != nil || tok != "s3cret" {
		t.Errorf("token_env: %q, %v; want the variable's value, trimmed", tok, err)
	}
	s.cfg.Serve = config.ServeConfig{}
	if tok, _ := serveToken(s); tok != "other" {
		t.Errorf("without serve.token_*: %q, want $LATCH_SERVE_TOKEN", tok)
	}
}
