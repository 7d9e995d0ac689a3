package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/config"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// writeConfig writes body (with $TMP replaced by a fresh temp dir) to
// $TMP/latch.json and returns the path and the dir. (Package config's
// tests have the same helper: test helpers are not shared across
// packages.)
func writeConfig(t *testing.T, body string) (path, dir string) {
	t.Helper()
	dir = t.TempDir()
	path = filepath.Join(dir, "latch.json")
	if err := os.WriteFile(path, []byte(strings.ReplaceAll(body, "$TMP", dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return path, dir
}

// copyFixture copies config/testdata/name into a temp dir, so that paths
// in messages are predictable and relative paths resolve there.
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(mcptestutil.ModuleRoot(t), "config", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	path, _ := writeConfig(t, string(data))
	return path
}

// serverNamed returns cfg's server called name, or fails the test.
func serverNamed(t *testing.T, cfg *config.Config, name string) config.ServerConfig {
	t.Helper()
	for _, s := range cfg.Servers {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no server %q in %+v", name, cfg.Servers)
	return config.ServerConfig{}
}

// warningsWith returns the warnings containing sub.
func warningsWith(cfg *config.Config, sub string) []string {
	var out []string
	for _, w := range cfg.Warnings {
		if strings.Contains(w, sub) {
			out = append(out, w)
		}
	}
	return out
}

func TestLoadConfigValues(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		env   map[string]string
		check func(t *testing.T, cfg *config.Config)
	}{
		{"keep_alive seconds", `{"ollama": {"keep_alive": 300}}`, nil, func(t *testing.T, cfg *config.Config) {
			if d, ok := cfg.Ollama.KeepAliveDuration(); cfg.Ollama.KeepAlive != "300" || !ok || d != 300*time.Second {
				t.Errorf("keep_alive = %q (%v)", cfg.Ollama.KeepAlive, d)
			}
		}},
		{"keep_alive negative", `{"ollama": {"keep_alive": -1}}`, nil, func(t *testing.T, cfg *config.Config) {
			if d, ok := cfg.Ollama.KeepAliveDuration(); !ok || d != -time.Second {
				t.Errorf("keep_alive = %v", d)
			}
		}},
		{"think false", `{"ollama": {"think": false}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.Think == nil || *cfg.Ollama.Think || cfg.Ollama.ThinkLevel != "" || cfg.Ollama.Truncate {
				t.Errorf("think = %v %q, truncate %v", cfg.Ollama.Think, cfg.Ollama.ThinkLevel, cfg.Ollama.Truncate)
			}
		}},
		{"think level and truncate", `{"ollama": {"think": "max", "truncate": true}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.Think != nil || cfg.Ollama.ThinkLevel != "max" || !cfg.Ollama.Truncate {
				t.Errorf("think = %v %q, truncate %v", cfg.Ollama.Think, cfg.Ollama.ThinkLevel, cfg.Ollama.Truncate)
			}
		}},
		{"text_tool_calls default", `{"ollama": {}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.TextToolCalls != nil || !cfg.Ollama.TextToolCallsOn() {
				t.Errorf("text_tool_calls = %v, on = %v; want unset, on", cfg.Ollama.TextToolCalls, cfg.Ollama.TextToolCallsOn())
			}
		}},
		{"text_tool_calls false", `{"ollama": {"text_tool_calls": false}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.TextToolCalls == nil || cfg.Ollama.TextToolCallsOn() {
				t.Errorf("text_tool_calls = %v, want false", cfg.Ollama.TextToolCalls)
			}
		}},
		{"text_tool_calls true", `{"ollama": {"text_tool_calls": true}}`, nil, func(t *testing.T, cfg *config.Config) {
			if !cfg.Ollama.TextToolCallsOn() {
				t.Error("text_tool_calls true is off")
			}
		}},
		{"protocol per server", `{"mcpServers": {
			"a": {"command": "x"},
			"b": {"command": "x", "protocol": "auto"},
			"c": {"command": "x", "protocol": "2025-11-25"},
			"d": {"url": "https://h/d", "protocol": "2026-07-28"}}}`, nil, func(t *testing.T, cfg *config.Config) {
			var got []string
			for _, s := range cfg.Servers {
				got = append(got, s.Protocol)
			}
			if want := []string{"", "auto", "2025-11-25", "2026-07-28"}; !slices.Equal(got, want) {
				t.Errorf("protocols %q, want %q", got, want)
			}
			if p := serverConfigs(cfg.Servers)[3].Protocol; p != "2026-07-28" {
				t.Errorf("passed on to the session as %q", p)
			}
		}},
		{"approve_args per server", `{"mcpServers": {
			"a": {"command": "x"},
			"b": {"command": "x", "approve_args": "tool"},
			"c": {"command": "x", "approve_args": "exact"}}}`, nil, func(t *testing.T, cfg *config.Config) {
			var got []string
			for _, s := range cfg.Servers {
				got = append(got, s.ApproveArgs)
			}
			if want := []string{"", "tool", "exact"}; !slices.Equal(got, want) {
				t.Errorf("approve_args %q, want %q", got, want)
			}
			if p := (&settings{cfg: cfg, mode: "ask"}).policy(); !slices.Equal(p.ExactArgs, []string{"c"}) {
				t.Errorf("the policy's exact-arguments servers %q, want [c]", p.ExactArgs)
			}
		}},
		{"effect per server", `{"mcpServers": {
			"a": {"command": "x"},
			"b": {"command": "x", "effect": "at_most_once"},
			"c": {"command": "x", "effect": "idempotent"}}}`, nil, func(t *testing.T, cfg *config.Config) {
			var got []string
			for _, s := range cfg.Servers {
				got = append(got, s.Effect)
			}
			if want := []string{"", "at_most_once", "idempotent"}; !slices.Equal(got, want) {
				t.Errorf("effects %q, want %q", got, want)
			}
			if got := idempotentServers(cfg.Servers); !slices.Equal(got, []string{"c"}) {
				t.Errorf("the session's idempotent servers %q, want [c]", got)
			}
		}},
		{"transport aliases", `{"mcpServers": {
			"a": {"url": "https://h/a", "transport": "streamable-http"},
			"b": {"url": "https://h/b", "type": "streamable_http"},
			"c": {"url": "https://h/c", "transport": "streamable"},
			"d": {"url": "https://h/d", "type": "streamableHttp", "transport": "http"},
			"e": {"url": "https://h/e", "transport": "SSE", "type": "sse"},
			"f": {"command": "x", "transport": "stdio"}}}`, nil, func(t *testing.T, cfg *config.Config) {
			var got []string
			for _, s := range cfg.Servers {
				got = append(got, s.Transport)
			}
			if want := []string{"http", "http", "http", "http", "sse", "stdio"}; !reflect.DeepEqual(got, want) {
				t.Errorf("transports = %v, want %v", got, want)
			}
		}},
		{"credentials on loopback http", `{"mcpServers": {
			"a": {"url": "http://localhost:3001/mcp", "token_env": "T"},
			"b": {"url": "http://127.8.9.10/mcp", "token_env": "T"},
			"c": {"url": "http://[::1]:3001/mcp", "token_env": "T"}}}`,
			map[string]string{"T": "v"}, func(t *testing.T, cfg *config.Config) {
				if len(cfg.Servers) != 3 || cfg.Servers[0].TokenEnv != "T" {
					t.Errorf("servers = %+v", cfg.Servers)
				}
			}},
		{"disabled server skips machine checks", `{"mcpServers": {"old": {"url": "https://h/mcp",
			"token_env": "UNSET_VAR", "disabled": true},
			"older": {"url": "https://h/mcp", "token_file": "missing.token", "disabled": true},
			"oldest": {"url": "https://h/mcp", "token_command": ["no-such-cmd-latch-test"], "disabled": true}}}`,
			nil, func(t *testing.T, cfg *config.Config) {
				if len(cfg.Servers) != 3 || !cfg.Servers[0].Disabled {
					t.Errorf("servers = %+v", cfg.Servers)
				}
			}},
		{"relative paths resolve against the config folder", `{"mcpServers": {
			"a": {"url": "https://h/mcp", "token_file": "latch.json"},
			"b": {"command": "x", "cwd": "."}}}`, nil, func(t *testing.T, cfg *config.Config) {
			dir := filepath.Dir(cfg.Path)
			if cfg.Servers[0].TokenFile != filepath.Join(dir, "latch.json") || cfg.Servers[1].Cwd != dir {
				t.Errorf("token_file = %q, cwd = %q", cfg.Servers[0].TokenFile, cfg.Servers[1].Cwd)
			}
		}},
		{"token_command found", `{"mcpServers": {"a": {"url": "https://h/mcp", "token_command": ["sh", "-c", "echo x"]}}}`,
			nil, func(t *testing.T, cfg *config.Config) {
				if got := cfg.Servers[0].TokenCommand; !reflect.DeepEqual(got, []string{"sh", "-c", "echo x"}) {
					t.Errorf("token_command = %v", got)
				}
			}},
		{"literal token warns", `{"mcpServers": {"crm": {"url": "https://h/mcp", "token": "abc"}}}`,
			nil, func(t *testing.T, cfg *config.Config) {
				want := "config " + cfg.Path + `: server "crm": token: a literal token in the config file; prefer token_env, token_file or token_command`
				if !reflect.DeepEqual(cfg.Warnings, []string{want}) || cfg.Servers[0].Token != "abc" {
					t.Errorf("warnings = %q", cfg.Warnings)
				}
			}},
		{"authorization header warns", `{"mcpServers": {"crm": {"url": "https://h/mcp", "headers": {"authorization": "Bearer abc"}}}}`,
			nil, func(t *testing.T, cfg *config.Config) {
				if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `server "crm": headers.authorization: a literal credential`) {
					t.Errorf("warnings = %q", cfg.Warnings)
				}
			}},
		{"authorization header on loopback http warns", `{"mcpServers": {
			"a": {"url": "http://localhost:3001/mcp", "headers": {"Authorization": "Bearer abc"}},
			"b": {"url": "http://127.0.0.1/mcp", "headers": {"proxy-authorization": "Basic abc"}}}}`,
			nil, func(t *testing.T, cfg *config.Config) {
				if len(cfg.Warnings) != 2 || !strings.Contains(cfg.Warnings[1], `server "b": headers.proxy-authorization: a literal credential`) {
					t.Errorf("warnings = %q", cfg.Warnings)
				}
			}},
		{"env_inherit", `{"mcpServers": {
			"a": {"command": "x", "env_inherit": true},
			"b": {"command": "x", "env_inherit": ["GH_TOKEN", "npm_config_cache", "_X1"]},
			"c": {"command": "x", "env_inherit": false},
			"d": {"command": "x", "env_inherit": []},
			"e": {"command": "x"}}}`, nil, func(t *testing.T, cfg *config.Config) {
			type inherit struct {
				all   bool
				names []string
			}
			var got []inherit
			for _, s := range cfg.Servers {
				got = append(got, inherit{s.EnvInheritAll, s.EnvInherit})
			}
			want := []inherit{{true, nil}, {false, []string{"GH_TOKEN", "npm_config_cache", "_X1"}}, {false, nil}, {false, []string{}}, {false, nil}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("env_inherit = %+v, want %+v", got, want)
			}
		}},
		{"max_tools", `{"ollama": {"max_tools": 10}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.MaxTools != 10 {
				t.Errorf("max_tools = %d, want 10", cfg.Ollama.MaxTools)
			}
		}},
		{"embed_model", `{"ollama": {"embed_model": "nomic-embed-text"}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.EmbedModel != "nomic-embed-text" {
				t.Errorf("embed_model = %q", cfg.Ollama.EmbedModel)
			}
		}},
		{"embed_model unset", `{"ollama": {}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.EmbedModel != "" {
				t.Errorf("embed_model = %q, want unset", cfg.Ollama.EmbedModel)
			}
		}},
		{"compact_at", `{"ollama": {"compact_at": 0.6}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.CompactAt != 0.6 || cfg.Ollama.NoCompact {
				t.Errorf("compact_at = %v (off %v), want 0.6", cfg.Ollama.CompactAt, cfg.Ollama.NoCompact)
			}
		}},
		{"compact_at false", `{"ollama": {"compact_at": false}}`, nil, func(t *testing.T, cfg *config.Config) {
			if !cfg.Ollama.NoCompact {
				t.Errorf("compact_at false does not turn automatic compaction off")
			}
		}},
		{"max_tools unset", `{"ollama": {}}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Ollama.MaxTools != 0 {
				t.Errorf("max_tools = %d, want 0 (the default)", cfg.Ollama.MaxTools)
			}
		}},
		{"server tools", `{"mcpServers": {
			"a": {"command": "x", "tools": ["read_file", "list_directory"], "allow": ["read_file"]},
			"b": {"command": "x", "tools": []},
			"c": {"command": "x"}}}`, nil, func(t *testing.T, cfg *config.Config) {
			if got := cfg.Servers[0].Tools; !reflect.DeepEqual(got, []string{"read_file", "list_directory"}) {
				t.Errorf("a: tools = %q", got)
			}
			if !reflect.DeepEqual(cfg.Servers[0].Allow, []string{"read_file"}) {
				t.Errorf("a: allow = %q: tools must not change it", cfg.Servers[0].Allow)
			}
			if got := cfg.Servers[1].Tools; got == nil || len(got) != 0 {
				t.Errorf("b: tools = %#v, want empty (none offered), not unset", got)
			}
			if got := cfg.Servers[2].Tools; got != nil {
				t.Errorf("c: tools = %#v, want nil (all offered)", got)
			}
			if len(cfg.Warnings) != 0 {
				t.Errorf("warnings %q: names are checked at connect, not here", cfg.Warnings)
			}
		}},
		{"server tools listed twice", `{"mcpServers": {"a": {"command": "x", "tools": ["t", "t"]}}}`, nil, func(t *testing.T, cfg *config.Config) {
			if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `server "a": tools: "t" is listed twice`) {
				t.Errorf("warnings = %q", cfg.Warnings)
			}
		}},
		{"utf-8 BOM", "\ufeff" + `{"model": "m"}`, nil, func(t *testing.T, cfg *config.Config) {
			if cfg.Model != "m" {
				t.Errorf("model = %q", cfg.Model)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, dir := writeConfig(t, tt.body)
			env := map[string]string{"HOME": dir}
			for k, v := range tt.env {
				env[k] = v
			}
			cfg, err := config.Load(path, envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

// TestThinkLevelsAgree: the levels a config's "ollama.think" accepts are
// the levels the session sends (package config keeps its own list, as it
// does not import session).
func TestThinkLevelsAgree(t *testing.T) {
	if !slices.Equal(config.ThinkLevels, session.ThinkLevels) {
		t.Errorf("config.ThinkLevels %q, session.ThinkLevels %q", config.ThinkLevels, session.ThinkLevels)
	}
}
