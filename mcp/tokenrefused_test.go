package mcp

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestRefusedStaticTokenSaysWhereItCameFrom: a real mcp-go server that
// answers 401 to a wrong static credential — from token_env, or an
// Authorization header in the config as other apps write it — is said to
// have refused the token, naming where it came from (the variable, the
// config key), never its value; never "expired", never a browser login.
// Without a chat (-p, latch serve) no chat command is suggested, at
// connect or when a call is refused later.
func TestRefusedStaticTokenSaysWhereItCameFrom(t *testing.T) {
	const envSecret, headerSecret = "wrong-env-s3cret", "wrong-header-s3cret"
	getenv := func(k string) string {
		if k == "MY_TOKEN" {
			return envSecret
		}
		return ""
	}
	chatCommands := []string{"/token", "/connect", "/login"}
	cases := []struct {
		name   string
		cfg    ServerConfig
		noChat bool
		want   []string
		not    []string
	}{
		{"token_env, chat", ServerConfig{TokenEnv: "MY_TOKEN"}, false,
			[]string{"refused the token from $MY_TOKEN (token_env) (401 Unauthorized)", "/token web", "/connect web"}, nil},
		{"Authorization header, chat", ServerConfig{Headers: map[string]string{"Authorization": "Bearer " + headerSecret}}, false,
			[]string{"refused the token in its config's Authorization header (headers) (401 Unauthorized)", "/token web"}, nil},
		{"token_env, -p", ServerConfig{TokenEnv: "MY_TOKEN"}, true,
			[]string{"refused the token from $MY_TOKEN (token_env)", "run latch again"}, chatCommands},
		{"Authorization header, -p", ServerConfig{Headers: map[string]string{"authorization": "Bearer " + headerSecret}}, true,
			[]string{"refused the token in its config's Authorization header (headers)"}, chatCommands},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := newAuthServer(t, "right")
			cfg := c.cfg
			cfg.Name, cfg.Transport, cfg.URL = "web", TransportHTTP, srv.URL+"/mcp"
			m := New([]ServerConfig{cfg}, Options{Getenv: getenv, NoChat: c.noChat})
			defer m.CloseAll()
			m.Start()
			said := waitState(t, m, "web", StateAuthExpired, 5*time.Second).Summary()
			for _, w := range c.want {
				if !strings.Contains(said, w) {
					t.Errorf("said %q, want %q in it", said, w)
				}
			}
			for _, n := range append(c.not, envSecret, headerSecret, "expired", "browser", "/login") {
				if strings.Contains(said, n) {
					t.Errorf("said %q: %q has no place in it", said, n)
				}
			}
		})
	}

	t.Run("a call refused later, -p", func(t *testing.T) {
		srv := newAuthServer(t, envSecret)
		m := New([]ServerConfig{{Name: "web", Transport: TransportHTTP, URL: srv.URL + "/mcp", TokenEnv: "MY_TOKEN"}},
			Options{Getenv: getenv, NoChat: true})
		defer m.CloseAll()
		m.Start()
		waitState(t, m, "web", StateConnected, 5*time.Second)
		srv.setAccept("rotated-away")
		_, err := m.Call(context.Background(), "web__whoami", nil, "")
		if err == nil || !strings.Contains(err.Error(), "refused the token from $MY_TOKEN (token_env)") {
			t.Fatalf("call after the token was revoked: %v", err)
		}
		for _, n := range append(chatCommands, envSecret, "expired") {
			if strings.Contains(err.Error(), n) {
				t.Errorf("call error %q: %q has no place in it", err, n)
			}
		}
	})
}
