package config

import (
	"path/filepath"
	"testing"
)

func TestLoadConfigInboxSSH(t *testing.T) {
	path, dir := writeConfig(t, `{"serve": {"inbox_ssh": {"listen": "127.0.0.1:2222", "authorized_keys": "~/phone.keys"}}}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	want := InboxSSH{Listen: "127.0.0.1:2222", AuthorizedKeys: filepath.Join(dir, "phone.keys")}
	if cfg.Serve.InboxSSH == nil || *cfg.Serve.InboxSSH != want {
		t.Errorf("serve.inbox_ssh: %+v, want %+v", cfg.Serve.InboxSSH, want)
	}
}

func TestLoadConfigInboxSSHErrors(t *testing.T) {
	tests := []struct{ name, body, field, want string }{
		{"misspelt", `{"serve": {"inbox_ssh": {"listen": "127.0.0.1:2222", "authorised_keys": "k"}}}`, "serve.inbox_ssh",
			`unknown key "authorised_keys"; did you mean "authorized_keys"?`},
		{"key misspelt in serve", `{"serve": {"inbox_shh": {}}}`, "serve", `unknown key "inbox_shh"; did you mean "inbox_ssh"?`},
		{"not an object", `{"serve": {"inbox_ssh": "127.0.0.1:2222"}}`, "serve.inbox_ssh", "expected an object, got string"},
		{"no listen", `{"serve": {"inbox_ssh": {"authorized_keys": "k"}}}`, "serve.inbox_ssh", `give "listen"`},
		{"no keys", `{"serve": {"inbox_ssh": {"listen": "127.0.0.1:2222"}}}`, "serve.inbox_ssh", `give "authorized_keys"`},
		{"listen not host:port", `{"serve": {"inbox_ssh": {"listen": "2222", "authorized_keys": "k"}}}`, "serve.inbox_ssh.listen",
			`"2222" is not HOST:PORT`},
		{"port out of range", `{"serve": {"inbox_ssh": {"listen": "127.0.0.1:99999", "authorized_keys": "k"}}}`, "serve.inbox_ssh.listen",
			"is not HOST:PORT"},
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
		})
	}
}
