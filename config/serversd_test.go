package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeServersD writes files (name → body) into dir/servers.d.
func writeServersD(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	d := filepath.Join(dir, serversDName)
	if err := os.MkdirAll(d, 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(d, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// serverNames lists the names of cfg's servers, in order.
func serverNames(cfg *Config) []string {
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	return names
}

// TestConfigServersDAddsServer: servers.d/crm.json adds server "crm"
// beside the main file's, sorted, and a rule in the main file on crm__…
// reads as crm's tool (no "names no configured server's tool" warning).
func TestConfigServersDAddsServer(t *testing.T) {
	path, dir := writeConfig(t, `{"permissions": {"rules": [{"tool": "crm__find", "args": {}, "decision": "allow"}]},
		"mcpServers": {"fs": {"command": "x"}}}`)
	writeServersD(t, dir, map[string]string{
		"crm.json": `{"url": "https://crm.example/mcp", "mode": "ask", "effect": "idempotent",
			"rules": [{"tool": "delete", "args": {}, "decision": "deny"}]}`,
		"notes.txt":  `not json at all`,
		"a.json.bak": `{`,
	})
	cfg, err := Load(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(serverNames(cfg), ","); got != "crm,fs" {
		t.Fatalf("servers = %s, want crm,fs", got)
	}
	crm := cfg.Servers[0]
	if crm.URL != "https://crm.example/mcp" || crm.Transport != "http" || crm.Mode != "ask" || crm.Effect != EffectIdempotent ||
		crm.Timeout != DefaultTimeout {
		t.Errorf("crm = %+v", crm)
	}
	if len(crm.Rules) != 1 || crm.Rules[0].Origin != "config "+filepath.Join(dir, serversDName, "crm.json")+`: server "crm": rules[0]` {
		t.Errorf("crm's rule does not name its file: %+v", crm.Rules)
	}
	if len(cfg.Warnings) != 0 {
		t.Errorf("warnings: %q", cfg.Warnings)
	}
}

// TestConfigServersDDuplicateNamesBothFiles: a server in the main file and
// in servers.d is an error naming both files.
func TestConfigServersDDuplicateNamesBothFiles(t *testing.T) {
	path, dir := writeConfig(t, `{"mcpServers": {"crm": {"command": "x"}}}`)
	d := writeServersD(t, dir, map[string]string{"crm.json": `{"command": "y"}`})
	_, err := Load(path, fakeEnv(nil))
	if err == nil || !anyLineHasAll(err.Error(), []string{filepath.Join(d, "crm.json"), path, `"crm"`}) {
		t.Fatalf("err = %v; want one line naming %s and %s", err, filepath.Join(d, "crm.json"), path)
	}
}

// TestConfigServersDErrorNamesItsFile: errors inside a servers.d file name
// that file, not the main config; so does a file name that is no server
// name, and invalid JSON gives the file's line and column.
func TestConfigServersDErrorNamesItsFile(t *testing.T) {
	path, dir := writeConfig(t, `{"model": "m"}`)
	d := writeServersD(t, dir, map[string]string{
		"crm.json":  `{"command": "x", "timout": "5s"}`,
		"Bad.json":  `{"command": "x"}`,
		"wiki.json": "{\n  \"command\": \"x\",,\n}",
	})
	_, err := Load(path, fakeEnv(nil))
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"config " + filepath.Join(d, "crm.json") + `: server "crm": unknown key "timout"`,
		"config " + filepath.Join(d, "Bad.json") + `: file name: "Bad" is not a server name`,
		"config " + filepath.Join(d, "wiki.json") + ":2:",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, path) {
		t.Errorf("errors in servers.d files name the main config:\n%s", msg)
	}
}

// TestConfigServersDWorldWritableRefused: a servers.d folder or file that
// anyone may write is refused, naming it: it chooses the commands latch
// runs.
func TestConfigServersDWorldWritableRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no such mode bits")
	}
	path, dir := writeConfig(t, `{}`)
	d := writeServersD(t, dir, map[string]string{"crm.json": `{"command": "x"}`})
	file := filepath.Join(d, "crm.json")
	for _, p := range []string{file, d} {
		if err := os.Chmod(p, 0o777); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, fakeEnv(nil))
		if err == nil || !anyLineHasAll(err.Error(), []string{"config " + p + ":", "anyone may write it"}) {
			t.Errorf("%s world-writable: err = %v", p, err)
		}
	}
}

// TestConfigServersDBesideFlagConfig: --config FILE reads servers.d beside
// FILE, and not the one in $XDG_CONFIG_HOME.
func TestConfigServersDBesideFlagConfig(t *testing.T) {
	path, dir := writeConfig(t, `{}`)
	writeServersD(t, dir, map[string]string{"crm.json": `{"command": "crm-mcp"}`})
	xdg := t.TempDir()
	writeServersD(t, filepath.Join(xdg, "latch"), map[string]string{"other.json": `{"command": "z"}`})
	cfg, err := findAndLoad(path, fakeEnv(map[string]string{"XDG_CONFIG_HOME": xdg}))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(serverNames(cfg), ","); got != "crm" {
		t.Fatalf("servers = %q, want crm", got)
	}
}

// TestConfigServersDWithoutMainConfig: with no config file at all,
// $XDG_CONFIG_HOME/latch/servers.d alone configures the servers.
func TestConfigServersDWithoutMainConfig(t *testing.T) {
	xdg := t.TempDir()
	t.Chdir(t.TempDir()) // no ./latch.json
	writeServersD(t, filepath.Join(xdg, "latch"), map[string]string{"crm.json": `{"command": "crm-mcp"}`})
	getenv := fakeEnv(map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": t.TempDir()})
	cfg, err := findAndLoad("", getenv)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(serverNames(cfg), ","); got != "crm" || cfg.Servers[0].Command != "crm-mcp" {
		t.Fatalf("servers = %q (%+v), want crm", got, cfg.Servers)
	}
}
