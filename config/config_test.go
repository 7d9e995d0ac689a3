package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fakeEnv returns a getenv over m.
func fakeEnv(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// findAndLoad is what a command does first: the file Find names for
// flagPath (--config), loaded, with the project files of the working
// directory.
func findAndLoad(flagPath string, getenv func(string) string) (*Config, error) {
	path, _ := Find(flagPath, getenv)
	return LoadWithProject(path, ".", getenv)
}

// writeConfig writes body (with $TMP replaced by a fresh temp dir) to
// $TMP/latch.json and returns the path and the dir.
func writeConfig(t *testing.T, body string) (path, dir string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "latch.json")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(body, "$TMP", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

// copyFixture copies testdata/name into a temp dir, so that paths in
// messages are predictable and relative paths resolve there.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path, _ := writeConfig(t, string(data))
	return path
}

func TestLoadConfigFull(t *testing.T) {
	home := t.TempDir()
	tokenFile := filepath.Join(home, ".config", "latch", "crm.token")
	if err := os.MkdirAll(filepath.Dir(tokenFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tokenFile, []byte("SENTINEL-TOKEN-9f2c\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "full.json")
	cfg, err := Load(path, fakeEnv(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	think := true
	want := &Config{
		Path:  path,
		Model: "qwen3:8b",
		Ollama: OllamaConfig{
			Host: "http://127.0.0.1:11434", Think: &think, KeepAlive: "5m",
			Options: map[string]any{"temperature": 0.2, "num_ctx": 16384.0},
		},
		Permissions: PermissionsConfig{Mode: "read_only", Allow: []string{"fs__list_directory"}},
		Theme:       "auto",
		Servers: []ServerConfig{
			{
				Name: "crm", Transport: "http", URL: "https://mcp.example-crm.com/mcp",
				TokenFile: tokenFile, Headers: map[string]string{"X-Org": "acme"},
				Mode: "ask", Timeout: 60 * time.Second, ConnectTimeout: 15 * time.Second,
			},
			{
				Name: "fs", Transport: "stdio", Command: "npx",
				Args:    []string{"-y", "@modelcontextprotocol/server-filesystem", "/data"},
				Allow:   []string{"read_text_file", "list_directory"},
				Timeout: 60 * time.Second, ConnectTimeout: 15 * time.Second,
			},
			{
				Name: "old", Transport: "sse", URL: "http://localhost:8080/sse", Disabled: true,
				Timeout: 60 * time.Second, ConnectTimeout: 15 * time.Second,
			},
		},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got\n%#v\nwant\n%#v", cfg, want)
	}
	if d, ok := cfg.Ollama.KeepAliveDuration(); !ok || d != 5*time.Minute {
		t.Errorf("KeepAliveDuration = %v, %v", d, ok)
	}
}

func TestLoadConfigClaudeDesktop(t *testing.T) {
	cfg, err := Load(copyFixture(t, "claude_desktop.json"), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "" || cfg.Permissions.Mode != "" || len(cfg.Warnings) != 0 {
		t.Errorf("unexpected top-level values: %+v", cfg)
	}
	var got []string
	for _, s := range cfg.Servers {
		got = append(got, s.Name+":"+s.Transport)
	}
	if want := []string{"docs:http", "filesystem:stdio", "memory:stdio"}; !reflect.DeepEqual(got, want) {
		t.Errorf("servers = %v, want %v", got, want)
	}
	if env := cfg.Servers[2].Env; env["MEMORY_FILE_PATH"] != "/Users/me/memory.jsonl" {
		t.Errorf("env = %v", env)
	}
}

func TestLoadConfigVSCode(t *testing.T) {
	cfg, err := Load(copyFixture(t, "vscode.json"), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range cfg.Servers {
		got = append(got, s.Name+":"+s.Transport)
	}
	if want := []string{"legacy:sse", "memory:stdio", "remote:http"}; !reflect.DeepEqual(got, want) {
		t.Errorf("servers = %v, want %v", got, want)
	}
}

func TestLoadConfigDefaults(t *testing.T) {
	path, _ := writeConfig(t, `{"mcpServers": {"a": {"command": "x"}, "b": {"url": "https://h/mcp"}}}`)
	cfg, err := Load(path, fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cfg.Servers {
		if s.Timeout != DefaultTimeout || s.ConnectTimeout != DefaultConnectTimeout || s.Mode != "" || s.Disabled {
			t.Errorf("%s: %+v", s.Name, s)
		}
	}
	if cfg.Permissions.Mode != "" || cfg.Ollama.Think != nil || cfg.Ollama.KeepAlive != "" {
		t.Errorf("unset fields not zero: %+v", cfg)
	}
	if _, ok := cfg.Ollama.KeepAliveDuration(); ok {
		t.Error("KeepAliveDuration ok for unset")
	}
}

func TestLoadConfigEmptyPath(t *testing.T) {
	cfg, err := Load("", fakeEnv(nil))
	if err != nil || !reflect.DeepEqual(cfg, &Config{}) {
		t.Fatalf("Load(\"\") = %+v, %v", cfg, err)
	}
}

func TestLoadConfigMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope.json")
	_, err := Load(path, fakeEnv(nil))
	if err == nil || err.Error() != "config "+path+": file not found" {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadConfigErrors(t *testing.T) {
	tests := []struct {
		name   string
		body   string // $TMP is the folder of the config file, also HOME
		server string // "" for top-level errors
		field  string
		want   string
	}{
		// top level
		{"top-level not an object", `[]`, "", "", "expected an object, got array"},
		{"unknown top-level key", `{"modle": "m"}`, "", "modle", `unknown key "modle"; did you mean "model"?`},
		{"both mcpServers and servers", `{"mcpServers": {}, "servers": {}}`, "", "mcpServers, servers", "both given"},
		{"duplicate top-level key", `{"model": "a", "model": "b"}`, "", "model", `duplicate key "model"`},
		{"model type", `{"model": 8}`, "", "model", "model: expected a string, got number"},
		{"theme type", `{"theme": null}`, "", "theme", "theme: expected a string, got null"},
		{"ollama type", `{"ollama": "x"}`, "", "ollama", "ollama: expected an object, got string"},
		{"ollama unknown key", `{"ollama": {"hots": "h"}}`, "", "ollama", `unknown key "hots"; did you mean "host"?`},
		{"ollama.host type", `{"ollama": {"host": 1}}`, "", "ollama.host", "expected a string, got number"},
		{"ollama.think level", `{"ollama": {"think": "yes"}}`, "", "ollama.think",
			`expected true, false or a level (low, medium, high, max), got "yes"`},
		{"ollama.think type", `{"ollama": {"think": 1}}`, "", "ollama.think", "expected true, false or a level (low, medium, high, max), got number"},
		{"ollama.truncate type", `{"ollama": {"truncate": "no"}}`, "", "ollama.truncate", "expected true or false, got string"},
		{"ollama.text_tool_calls type", `{"ollama": {"text_tool_calls": "no"}}`, "", "ollama.text_tool_calls", "expected true or false, got string"},
		{"ollama.text_tool_calls null", `{"ollama": {"text_tool_calls": null}}`, "", "ollama.text_tool_calls", "expected true or false, got null"},
		{"ollama.keep_alive string", `{"ollama": {"keep_alive": "5 minutes"}}`, "", "ollama.keep_alive", `"5 minutes" is not a duration`},
		{"ollama.keep_alive fraction", `{"ollama": {"keep_alive": 1.5}}`, "", "ollama.keep_alive", "whole seconds, got 1.5"},
		{"ollama.keep_alive type", `{"ollama": {"keep_alive": true}}`, "", "ollama.keep_alive", "whole seconds, got boolean"},
		{"ollama.options type", `{"ollama": {"options": [1]}}`, "", "ollama.options", "expected an object, got array"},
		{"ollama.compact_at percent", `{"ollama": {"compact_at": 80}}`, "", "ollama.compact_at", "between 0 and 1 (e.g. 0.8 for 80 %), or false; got 80"},
		{"ollama.compact_at zero", `{"ollama": {"compact_at": 0}}`, "", "ollama.compact_at", "between 0 and 1"},
		{"ollama.compact_at true", `{"ollama": {"compact_at": true}}`, "", "ollama.compact_at", "or false to turn automatic compaction off; got true"},
		{"ollama.compact_at string", `{"ollama": {"compact_at": "80%"}}`, "", "ollama.compact_at", "got string"},
		{"ollama.embed_model empty", `{"ollama": {"embed_model": " "}}`, "", "ollama.embed_model", "must not be empty"},
		{"ollama.embed_model type", `{"ollama": {"embed_model": 3}}`, "", "ollama.embed_model", "expected a string, got number"},
		{"ollama.max_tools zero", `{"ollama": {"max_tools": 0}}`, "", "ollama.max_tools", "expected a whole number greater than 0, got 0"},
		{"ollama.max_tools negative", `{"ollama": {"max_tools": -3}}`, "", "ollama.max_tools", "greater than 0, got -3"},
		{"ollama.max_tools fraction", `{"ollama": {"max_tools": 2.5}}`, "", "ollama.max_tools", "greater than 0, got 2.5"},
		{"ollama.max_tools string", `{"ollama": {"max_tools": "24"}}`, "", "ollama.max_tools", "expected a whole number greater than 0, got string"},
		{"server tools type", `{"mcpServers": {"fs": {"command": "x", "tools": "read_file"}}}`, "fs", "tools", "expected an array of strings, got string"},
		{"server tools item type", `{"mcpServers": {"fs": {"command": "x", "tools": [1]}}}`, "fs", "tools[0]", "expected a string, got number"},
		{"server tools empty name", `{"mcpServers": {"fs": {"command": "x", "tools": [""]}}}`, "fs", "tools[0]", "must not be empty"},
		{"server tools glob", `{"mcpServers": {"fs": {"command": "x", "tools": ["read_*"]}}}`, "fs", "tools", `"read_*": matching is exact`},
		{"server tools unknown key", `{"mcpServers": {"fs": {"command": "x", "tool": []}}}`, "fs", "", `unknown key "tool"; did you mean "tools"?`},
		{"permissions unknown key", `{"permissions": {"allowed": []}}`, "", "permissions", `unknown key "allowed"; did you mean "allow"?`},
		{"permissions.mode", `{"permissions": {"mode": "foo"}}`, "", "permissions.mode", `"foo" is not a mode (read_only, ask, approve, auto)`},
		{"permissions.allow type", `{"permissions": {"allow": "fs__x"}}`, "", "permissions.allow", "expected an array of strings, got string"},
		{"permissions.allow element type", `{"permissions": {"allow": ["a", 1]}}`, "", "permissions.allow[1]", "expected a string, got number"},
		{"permissions.allow empty entry", `{"permissions": {"allow": [""]}}`, "", "permissions.allow[0]", "must not be empty"},
		{"permissions.allow glob", `{"permissions": {"allow": ["fs__*"]}}`, "", "permissions.allow", `"fs__*": matching is exact; list each tool`},
		{"mcpServers type", `{"mcpServers": []}`, "", "mcpServers", "expected an object, got array"},
		{"servers type", `{"servers": "x"}`, "", "servers", "expected an object, got string"},
		{"duplicate server", `{"mcpServers": {"fs": {"command": "a"}, "fs": {"command": "b"}}}`, "", "mcpServers", `duplicate key "fs"`},

		// server names and shape
		{"name upper case", `{"mcpServers": {"Fs": {"command": "x"}}}`, "Fs", "name", "must match [a-z0-9_-]{1,32}"},
		{"name with space", `{"mcpServers": {"my fs": {"command": "x"}}}`, "my fs", "name", "must match [a-z0-9_-]{1,32}"},
		{"name too long", `{"mcpServers": {"` + strings.Repeat("a", 33) + `": {"command": "x"}}}`, strings.Repeat("a", 33), "name", "must match"},
		{"name empty", `{"mcpServers": {"": {"command": "x"}}}`, `server "": name`, "name", "must match"},
		{"server not an object", `{"mcpServers": {"fs": "npx"}}`, "fs", "", "expected an object, got string"},
		{"unknown server key", `{"mcpServers": {"fs": {"comand": "npx"}}}`, "fs", "comand", `unknown key "comand"; did you mean "command"?`},
		{"unknown server key camelCase", `{"mcpServers": {"fs": {"url": "https://h/", "tokenEnv": "T"}}}`, "fs", "tokenEnv", `did you mean "token_env"?`},
		{"unknown server key far", `{"mcpServers": {"fs": {"command": "x", "zzz": 1}}}`, "fs", "zzz", `unknown key "zzz"`},
		{"duplicate server key", `{"mcpServers": {"fs": {"command": "a", "command": "b"}}}`, "fs", "", `duplicate key "command"`},
		{"duplicate env key", `{"mcpServers": {"fs": {"command": "a", "env": {"A": "1", "A": "2"}}}}`, "fs", "env", `duplicate key "A"`},

		// types
		{"command type", `{"mcpServers": {"fs": {"command": ["npx"]}}}`, "fs", "command", "expected a string, got array"},
		{"command empty", `{"mcpServers": {"fs": {"command": ""}}}`, "fs", "command", "must not be empty"},
		{"args type", `{"mcpServers": {"fs": {"command": "x", "args": "x"}}}`, "fs", "args", "expected an array of strings, got string"},
		{"args element type", `{"mcpServers": {"fs": {"command": "x", "args": ["a", 2]}}}`, "fs", "args[1]", "expected a string, got number"},
		{"env type", `{"mcpServers": {"fs": {"command": "x", "env": ["A=1"]}}}`, "fs", "env", "expected an object, got array"},
		{"env value type", `{"mcpServers": {"fs": {"command": "x", "env": {"PORT": 1}}}}`, "fs", "env.PORT", "expected a string, got number"},
		{"cwd type", `{"mcpServers": {"fs": {"command": "x", "cwd": 1}}}`, "fs", "cwd", "expected a string, got number"},
		{"headers type", `{"mcpServers": {"fs": {"url": "https://h/", "headers": "X: y"}}}`, "fs", "headers", "expected an object, got string"},
		{"headers value type", `{"mcpServers": {"fs": {"url": "https://h/", "headers": {"X-Org": 1}}}}`, "fs", "headers.X-Org", "expected a string, got number"},
		{"header name", `{"mcpServers": {"fs": {"url": "https://h/", "headers": {"X Org": "a"}}}}`, "fs", "headers", `"X Org" is not a valid header name`},
		{"header value line break", `{"mcpServers": {"fs": {"url": "https://h/", "headers": {"X-Org": "a\r\nB: c"}}}}`, "fs", "headers.X-Org", "line break"},
		{"disabled type", `{"mcpServers": {"fs": {"command": "x", "disabled": "yes"}}}`, "fs", "disabled", "expected true or false, got string"},
		{"approve_args value", `{"mcpServers": {"fs": {"command": "x", "approve_args": "Exact"}}}`, "fs", "approve_args", `"Exact" is not one of tool, exact`},
		{"effect value", `{"mcpServers": {"fs": {"command": "x", "effect": "exactly_once"}}}`, "fs", "effect", `"exactly_once" is not one of at_most_once, idempotent`},
		{"approve_args type", `{"mcpServers": {"fs": {"command": "x", "approve_args": true}}}`, "fs", "approve_args", "expected a string, got bool"},
		{"protocol value", `{"mcpServers": {"fs": {"command": "x", "protocol": "2026"}}}`, "fs", "protocol", `"2026" is not one of auto, 2025-11-25, 2026-07-28`},
		{"protocol type", `{"mcpServers": {"fs": {"command": "x", "protocol": 2026}}}`, "fs", "protocol", "expected a string, got number"},
		{"protocol sse", `{"mcpServers": {"web": {"url": "https://h/sse", "transport": "sse", "protocol": "2026-07-28"}}}`, "web", "protocol", `"2026-07-28" has no sse transport (use http)`},
		{"url type", `{"mcpServers": {"fs": {"url": 1}}}`, "fs", "url", "expected a string, got number"},
		{"token type", `{"mcpServers": {"fs": {"url": "https://h/", "token": 1}}}`, "fs", "token", "expected a string, got number"},

		// transport
		{"transport value", `{"mcpServers": {"fs": {"url": "https://h/", "transport": "websocket"}}}`, "fs", "transport",
			`"websocket" is not a transport (stdio, http, sse; http is also accepted as streamable-http, streamable_http, streamable, streamableHttp)`},
		{"type value", `{"mcpServers": {"fs": {"url": "https://h/", "type": "ws"}}}`, "fs", "type", `"ws" is not a transport (stdio, http, sse`},
		{"type conflicts with transport", `{"mcpServers": {"fs": {"url": "https://h/", "transport": "http", "type": "sse"}}}`, "fs", "type", `"sse" conflicts with transport "http"`},
		{"command and url", `{"mcpServers": {"fs": {"command": "x", "url": "https://h/"}}}`, "fs", "command, url", "both given"},
		{"neither command nor url", `{"mcpServers": {"fs": {"args": ["x"]}}}`, "fs", "command", "needs command (stdio) or url (http/sse)"},
		{"stdio with url", `{"mcpServers": {"fs": {"url": "https://h/", "transport": "stdio"}}}`, "fs", "transport", `"stdio" needs command, not url`},
		{"sse with command", `{"mcpServers": {"fs": {"command": "x", "type": "sse"}}}`, "fs", "transport", `"sse" needs url, not command`},
		{"http with command", `{"mcpServers": {"fs": {"command": "x", "transport": "http"}}}`, "fs", "transport", `"http" needs url, not command`},
		{"headers on stdio", `{"mcpServers": {"fs": {"command": "x", "headers": {"A": "b"}}}}`, "fs", "headers", "only for url (http/sse) servers"},
		{"args on url server", `{"mcpServers": {"fs": {"url": "https://h/", "args": ["x"]}}}`, "fs", "args", "only for stdio (command) servers"},
		{"cwd missing", `{"mcpServers": {"fs": {"command": "x", "cwd": "~/nowhere"}}}`, "fs", "cwd", "directory not found: $TMP/nowhere"},
		{"cwd is a file", `{"mcpServers": {"fs": {"command": "x", "cwd": "latch.json"}}}`, "fs", "cwd", "not a directory: $TMP/latch.json"},

		// url
		{"url empty", `{"mcpServers": {"fs": {"url": ""}}}`, "fs", "url", "must not be empty"},
		{"url scheme", `{"mcpServers": {"fs": {"url": "ftp://h/mcp"}}}`, "fs", "url", "scheme must be http or https"},
		{"url no host", `{"mcpServers": {"fs": {"url": "https:///mcp"}}}`, "fs", "url", "missing host"},
		{"url not a url", `{"mcpServers": {"fs": {"url": "http://a b/"}}}`, "fs", "url", "not a valid URL"},
		{"url user info", `{"mcpServers": {"fs": {"url": "https://u:p@h/"}}}`, "fs", "url", "must not contain user info"},
		{"credentials on plain http", `{"mcpServers": {"crm": {"url": "http://mcp.example.com/mcp", "token_env": "T"}}}`, "crm", "url",
			`credentials require https (host "mcp.example.com" is not loopback)`},
		{"credentials on http to a LAN address", `{"mcpServers": {"crm": {"url": "http://192.168.1.2:8080/mcp", "token": "t"}}}`, "crm", "url", "credentials require https"},
		{"authorization header on plain http", `{"mcpServers": {"crm": {"url": "http://mcp.example.com/mcp", "headers": {"Authorization": "Bearer t"}}}}`,
			"crm", "headers.Authorization", `credentials require https (host "mcp.example.com" is not loopback)`},
		{"authorization header on plain http, any case", `{"mcpServers": {"crm": {"url": "http://192.168.1.2/mcp", "headers": {"aUTHORIZATION": "Bearer t"}}}}`,
			"crm", "headers.aUTHORIZATION", "credentials require https"},
		{"proxy-authorization header on plain http", `{"mcpServers": {"crm": {"url": "http://mcp.example.com/mcp", "headers": {"proxy-authorization": "Basic t"}}}}`,
			"crm", "headers.proxy-authorization", "credentials require https"},

		// credentials
		{"two credentials", `{"mcpServers": {"crm": {"url": "https://h/", "token_env": "T", "token_file": "~/t"}}}`, "crm", "token_env, token_file", "use only one credential source"},
		{"all credentials", `{"mcpServers": {"crm": {"url": "https://h/", "token": "a", "token_env": "T", "token_file": "~/t", "token_command": ["sh"]}}}`,
			"crm", "token, token_env, token_file, token_command", "use only one credential source"},
		{"credential on stdio", `{"mcpServers": {"fs": {"command": "x", "token_env": "T"}}}`, "fs", "token_env", "credentials are only for url servers; use env for stdio servers"},
		{"token empty", `{"mcpServers": {"crm": {"url": "https://h/", "token": ""}}}`, "crm", "token", "must not be empty"},
		{"token_env unset", `{"mcpServers": {"crm": {"url": "https://h/", "token_env": "CRM_TOKEN_UNSET"}}}`, "crm", "token_env", "environment variable CRM_TOKEN_UNSET is not set"},
		{"token_env not a name", `{"mcpServers": {"crm": {"url": "https://h/", "token_env": "ghp_x-y"}}}`, "crm", "token_env", "not a variable name"},
		{"env on url server", `{"mcpServers": {"fs": {"url": "https://h/", "env": {"A": "b"}}}}`, "fs", "env", "only for stdio (command) servers"},
		{"token_env holds a token", `{"mcpServers": {"crm": {"url": "https://h/", "token_env": "Bearer abc.def"}}}`, "crm", "token_env", "not a variable name"},

		// env_inherit
		{"env_inherit on url server", `{"mcpServers": {"fs": {"url": "https://h/", "env_inherit": true}}}`, "fs", "env_inherit", "only for stdio (command) servers"},
		{"env_inherit string", `{"mcpServers": {"fs": {"command": "x", "env_inherit": "PATH"}}}`, "fs", "env_inherit",
			"expected true, false or an array of variable names, got string"},
		{"env_inherit object", `{"mcpServers": {"fs": {"command": "x", "env_inherit": {"PATH": true}}}}`, "fs", "env_inherit",
			"expected true, false or an array of variable names, got object"},
		{"env_inherit element type", `{"mcpServers": {"fs": {"command": "x", "env_inherit": ["A", 1]}}}`, "fs", "env_inherit[1]", "expected a string, got number"},
		{"env_inherit empty name", `{"mcpServers": {"fs": {"command": "x", "env_inherit": [""]}}}`, "fs", "env_inherit[0]", "must not be empty"},
		{"env_inherit glob", `{"mcpServers": {"fs": {"command": "x", "env_inherit": ["A", "LC_*"]}}}`, "fs", "env_inherit[1]", "not a variable name"},
		{"env_inherit leading digit", `{"mcpServers": {"fs": {"command": "x", "env_inherit": ["1A"]}}}`, "fs", "env_inherit[0]", "not a variable name"},
		{"env_inherit typo", `{"mcpServers": {"fs": {"command": "x", "env_inherits": true}}}`, "fs", "", `unknown key "env_inherits"; did you mean "env_inherit"?`},
		{"token_env empty name", `{"mcpServers": {"crm": {"url": "https://h/", "token_env": ""}}}`, "crm", "token_env", "must not be empty"},
		{"token_file missing", `{"mcpServers": {"crm": {"url": "https://h/", "token_file": "~/x.token"}}}`, "crm", "token_file", "file not found: $TMP/x.token"},
		{"token_file relative missing", `{"mcpServers": {"crm": {"url": "https://h/", "token_file": "x.token"}}}`, "crm", "token_file", "file not found: $TMP/x.token"},
		{"token_file unreadable", `{"mcpServers": {"crm": {"url": "https://h/", "token_file": "latch.json/t"}}}`, "crm", "token_file", "cannot read $TMP/latch.json/t: not a directory"},
		{"token_file is a directory", `{"mcpServers": {"crm": {"url": "https://h/", "token_file": "$TMP"}}}`, "crm", "token_file", "is a directory, not a file: $TMP"},
		{"token_command type", `{"mcpServers": {"crm": {"url": "https://h/", "token_command": "gcloud auth print-access-token"}}}`, "crm", "token_command", "expected an array of strings, got string"},
		{"token_command empty", `{"mcpServers": {"crm": {"url": "https://h/", "token_command": []}}}`, "crm", "token_command", "must not be empty"},
		{"token_command empty program", `{"mcpServers": {"crm": {"url": "https://h/", "token_command": [""]}}}`, "crm", "token_command", "the first element must be a command"},
		{"token_command not found", `{"mcpServers": {"crm": {"url": "https://h/", "token_command": ["no-such-cmd-latch-test", "x"]}}}`, "crm", "token_command", "command not found: no-such-cmd-latch-test"},

		// allow, mode, timeouts
		{"allow glob star", `{"mcpServers": {"fs": {"command": "x", "allow": ["read_*"]}}}`, "fs", "allow", `"read_*": matching is exact; list each tool`},
		{"allow glob question", `{"mcpServers": {"fs": {"command": "x", "allow": ["read_?"]}}}`, "fs", "allow", "matching is exact; list each tool"},
		{"allow glob bracket", `{"mcpServers": {"fs": {"command": "x", "allow": ["read_[ab]"]}}}`, "fs", "allow", "matching is exact; list each tool"},
		{"allow empty entry", `{"mcpServers": {"fs": {"command": "x", "allow": [""]}}}`, "fs", "allow[0]", "must not be empty"},
		{"allow type", `{"mcpServers": {"fs": {"command": "x", "allow": "read"}}}`, "fs", "allow", "expected an array of strings, got string"},
		{"mode", `{"mcpServers": {"fs": {"command": "x", "mode": "yolo"}}}`, "fs", "mode", `"yolo" is not a mode (read_only, ask, approve, auto)`},
		{"mode type", `{"mcpServers": {"fs": {"command": "x", "mode": true}}}`, "fs", "mode", "expected a string, got boolean"},
		{"timeout not a duration", `{"mcpServers": {"fs": {"command": "x", "timeout": "abc"}}}`, "fs", "timeout", `"abc" is not a duration`},
		{"timeout number", `{"model": "m", "mcpServers": {"fs": {"command": "x", "timeout": 60}}}`, "fs", "timeout", `expected a duration string like "60s", got number`},
		{"timeout zero", `{"mcpServers": {"fs": {"command": "x", "timeout": "0s"}}}`, "fs", "timeout", "must be greater than 0"},
		{"connect_timeout negative", `{"mcpServers": {"fs": {"command": "x", "connect_timeout": "-1s"}}}`, "fs", "connect_timeout", "must be greater than 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, dir := writeConfig(t, tt.body)
			cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
			if err == nil {
				t.Fatalf("no error; config %+v", cfg)
			}
			want := []string{"config " + path + ": ", tt.field, strings.ReplaceAll(tt.want, "$TMP", dir)}
			if tt.server != "" && !strings.HasPrefix(tt.server, "server ") {
				want = append(want, `server "`+tt.server+`": `)
			} else if tt.server != "" {
				want = append(want, tt.server)
			}
			if !anyLineHasAll(err.Error(), want) {
				t.Errorf("no error line has all of %q; got:\n%v", want, err)
			}
		})
	}
}

func TestLoadConfigTokenFileUnreadable(t *testing.T) {
	// A path through a regular file cannot be read by anyone, root
	// included (ENOTDIR), unlike a file with no permission bits.
	path, dir := writeConfig(t, `{"mcpServers": {"crm": {"url": "https://h/", "token_file": "t.token/inner"}}}`)
	if err := os.WriteFile(filepath.Join(dir, "t.token"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path, fakeEnv(nil))
	if err == nil || !anyLineHasAll(err.Error(), []string{path, `server "crm"`, "token_file: cannot read", "not a directory"}) {
		t.Fatalf("err = %v", err)
	}
	if os.Geteuid() == 0 {
		return // root reads a file whatever its permission bits say
	}
	path, dir = writeConfig(t, `{"mcpServers": {"crm": {"url": "https://h/", "token_file": "t.token"}}}`)
	if err := os.WriteFile(filepath.Join(dir, "t.token"), []byte("x"), 0o000); err != nil {
		t.Fatal(err)
	}
	_, err = Load(path, fakeEnv(nil))
	if err == nil || !anyLineHasAll(err.Error(), []string{path, `server "crm"`, "token_file: cannot read", "permission denied"}) {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadConfigSyntaxError(t *testing.T) {
	path := copyFixture(t, "syntax.json")
	_, err := Load(path, fakeEnv(nil))
	// The comma missing before "args" is seen at line 4, column 30.
	want := "config " + path + `:4:30: invalid JSON: invalid character '"' after object value (expecting ',' or '}')`
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	path, _ = writeConfig(t, "{\n  \"model\": \"m\"")
	if _, err := Load(path, fakeEnv(nil)); err == nil || !strings.Contains(err.Error(), path+":2:14: invalid JSON: ") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadConfigCollectsAll(t *testing.T) {
	path := copyFixture(t, "invalid.json")
	p := "config " + path + ": "
	want := strings.Join([]string{
		p + `unknown key "modle"; did you mean "model"?`,
		p + `permissions.mode: "yolo" is not a mode (read_only, ask, approve, auto)`,
		p + `permissions.allow: "fs__*": matching is exact; list each tool`,
		p + `server "Beta": name: must match [a-z0-9_-]{1,32}`,
		p + `server "Beta": allow: "read_*": matching is exact; list each tool`,
		p + `server "Beta": token_file: credentials are only for url servers; use env for stdio servers`,
		p + `server "alpha": transport: "websocket" is not a transport (` + transportValues + `)`,
		p + `server "alpha": token, token_env: use only one credential source`,
		p + `server "alpha": url: credentials require https (host "mcp.example.com" is not loopback)`,
		p + `server "alpha": token_env: environment variable ALPHA_TOKEN is not set or empty`,
		p + `server "zeta": unknown key "comand"; did you mean "command"?`,
		p + `server "zeta": timeout: expected a duration string like "60s", got number`,
		p + `server "zeta": needs command (stdio) or url (http/sse)`,
	}, "\n")
	for range 5 { // map order must not leak into the output
		_, err := Load(path, fakeEnv(nil))
		if err == nil || err.Error() != want {
			t.Fatalf("got:\n%v\nwant:\n%s", err, want)
		}
	}
}

// TestLoadConfigNeverShowsSecrets loads files full of mistakes around a
// credential and checks that its value never reaches an error or warning.
func TestLoadConfigNeverShowsSecrets(t *testing.T) {
	const secret = "SENTINEL-TOKEN-9f2c"
	bodies := []string{
		`{"mcpServers": {"crm": {"url": "https://h/mcp", "token": "` + secret + `"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/mcp", "token": "` + secret + `", "token_env": "T"}}}`,
		`{"mcpServers": {"crm": {"command": "x", "token": "` + secret + `"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/mcp", "token_env": "T", "token_file": "t.token"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/mcp", "token_file": "t.token", "transport": "tcp"}}}`,
		`{"mcpServers": {"crm": {"url": "https://u:` + secret + `@h/mcp"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/mcp?key=` + secret + `", "token_env": "T"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h ` + secret + `/mcp", "token_env": "T"}}}`,
		`{"mcpServers": {"crm": {"url": "ftp://h/` + secret + `"}}}`,
		`{"mcpServers": {"crm": {"url": "https://h/", "headers": {"Authorization": "Bearer ` + secret + `\n"}}}}`,
		`{"mcpServers": {"crm": {"url": "https://h/", "headers": {"Authorization": "Bearer ` + secret + `"}}}}`,
		`{"mcpServers": {"crm": {"command": "x", "env": {"TOKEN": "` + secret + `"}, "headers": {"A": "` + secret + `"}}}}`,
		`{"mcpServers": {"crm": {"url": "https://h/", "token_command": ["sh", "` + secret + `"], "token": "` + secret + `"}}}`,
		`{"mcpServers": {"crm": {"url": "https://h/", "token": "` + secret + `", "tokn": 1}}}`,
		`{"mcpServers": {"crm": {"url": "https://h/", "token_env": "` + secret + `"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/", "token_env": "T", "token": "` + secret + `", "mode": "x"}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/", "headers": {"Authorization": "Bearer ` + secret + `"}}}}`,
		`{"mcpServers": {"crm": {"url": "http://h/", "headers": {"Proxy-Authorization": "` + secret + `"}}}}`,
		`{"mcpServers": {"crm": {"url": "https://h/", "token_env": "Bearer ` + secret + `"}}}`,
		`{"mcpServers": {"crm": {"command": "x", "env_inherit": ["` + secret + `"]}}}`,
	}
	for i, body := range bodies {
		path, dir := writeConfig(t, body)
		if err := os.WriteFile(filepath.Join(dir, "t.token"), []byte(secret), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir, "T": secret}))
		var text []string
		if err != nil {
			text = append(text, err.Error())
		}
		if cfg != nil {
			text = append(text, cfg.Warnings...)
			if cfg.Servers[0].TokenFile != "" && strings.Contains(cfg.Servers[0].TokenFile, secret) {
				t.Errorf("body %d: token file content in config", i)
			}
		}
		if len(text) == 0 {
			t.Errorf("body %d: expected an error or a warning", i)
		}
		for _, s := range text {
			if strings.Contains(s, secret) {
				t.Errorf("body %d: secret leaked: %s", i, s)
			}
		}
	}
}

func TestFindConfig(t *testing.T) {
	home := t.TempDir()
	work := t.TempDir()
	xdg := t.TempDir()
	t.Chdir(work)
	env := map[string]string{"HOME": home}
	getenv := fakeEnv(env)
	check := func(name, flag, wantPath string, wantExplicit bool) {
		t.Helper()
		if p, explicit := Find(flag, getenv); p != wantPath || explicit != wantExplicit {
			t.Errorf("%s: Find = %q, %v; want %q, %v", name, p, explicit, wantPath, wantExplicit)
		}
	}
	touch := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	check("nothing", "", "", false)
	homeCfg := filepath.Join(home, ".config", "latch", "config.json")
	touch(homeCfg)
	check("~/.config", "", homeCfg, false)
	env["XDG_CONFIG_HOME"] = "relative/ignored"
	check("relative XDG_CONFIG_HOME is ignored", "", homeCfg, false)
	env["XDG_CONFIG_HOME"] = xdg
	check("XDG_CONFIG_HOME without the file", "", "", false)
	xdgCfg := filepath.Join(xdg, "latch", "config.json")
	touch(xdgCfg)
	check("XDG_CONFIG_HOME", "", xdgCfg, false)
	touch(filepath.Join(work, "latch.json"))
	check("./latch.json is a project file, merged, not the config", "", xdgCfg, false)
	env["LATCH_CONFIG"] = "/missing/env.json"
	check("LATCH_CONFIG, even missing", "", "/missing/env.json", true)
	check("flag, even missing", "/missing/flag.json", "/missing/flag.json", true)
	check("flag with ~", "~/flag.json", filepath.Join(home, "flag.json"), true)
}

// anyLineHasAll reports whether one line of text contains every part.
func anyLineHasAll(text string, parts []string) bool {
	for line := range strings.SplitSeq(text, "\n") {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			return true
		}
	}
	return false
}

// TestTokenEnvHoldingAGitHubToken: a GitHub token is a valid variable
// name, so it passes as one; when no such variable is set, the error must
// not repeat it.
func TestTokenEnvHoldingAGitHubToken(t *testing.T) {
	const tok = "ghp_SENTINEL0123456789abcdefABCDEF"
	path, _ := writeConfig(t, `{"mcpServers": {"crm": {"url": "https://h/", "token_env": "`+tok+`"}}}`)
	_, err := Load(path, fakeEnv(map[string]string{}))
	if err == nil || strings.Contains(err.Error(), "SENTINEL") || !strings.Contains(err.Error(), "not set") {
		t.Fatalf("err = %v", err)
	}
}

// TestLoadConfigAmbiguousAllow: a permissions.allow entry that names tools
// of two servers (x + "_foo" and x_ + "foo" are both x___foo) is refused,
// naming the entry and both readings; an entry that names one is fine.
func TestLoadConfigAmbiguousAllow(t *testing.T) {
	for _, body := range []string{
		`{"permissions": {"allow": ["x___foo", "x__bar"]}, "mcpServers": {"x": {"command": "a"}, "x_": {"command": "b"}}}`,
		// the servers first, in VS Code's key
		`{"servers": {"x_": {"command": "b"}, "x": {"command": "a"}}, "permissions": {"allow": ["x__bar", "x___foo"]}}`,
	} {
		path, dir := writeConfig(t, body)
		_, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
		if err == nil {
			t.Fatalf("%s: no error", body)
		}
		want := []string{"config " + path + ": permissions.allow: ", `"x___foo"`, `tool "_foo" of server "x"`,
			`tool "foo" of server "x_"`, `server's "allow" instead`}
		if !anyLineHasAll(err.Error(), want) {
			t.Errorf("no error line has all of %q; got:\n%v", want, err)
		}
		if strings.Count(err.Error(), "ambiguous") != 1 || strings.Contains(err.Error(), "x__bar") {
			t.Errorf("want one error, for x___foo only; got:\n%v", err)
		}
	}
	path, dir := writeConfig(t, `{"permissions": {"allow": ["x__bar", "x___baz", "fs__x___foo"]},
		"mcpServers": {"x": {"command": "a"}, "fs": {"command": "c"}}}`)
	if _, err := Load(path, fakeEnv(map[string]string{"HOME": dir})); err != nil {
		t.Errorf("entries naming one server each: %v", err)
	}
}
