package cli

import (
	"strings"
	"testing"
)

// pathsConfig: the README's deny rule, server-filesystem on the home
// (a stdio server: its bases are latch's working folder and the home),
// and a remote server, whose bases latch cannot know.
const pathsConfig = `{
  "permissions": {"rules": [{"tool": "*", "args": {"*": "~/.ssh/**"}, "decision": "deny"}]},
  "mcpServers": {
    "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "$TMP"]},
    "remote": {"url": "https://mcp.example.invalid/mcp"}}}`

// TestPolicyCheckJudgesPathsAsTheServerReadsThem: latch policy check
// resolves a relative path against the bases the session would give the
// server, denies the spellings of issue 30 that reach ~/.ssh, lets plain
// words be, and shows each path as the server may read it.
func TestPolicyCheckJudgesPathsAsTheServerReadsThem(t *testing.T) {
	path, dir := writeConfig(t, pathsConfig)
	cases := []struct {
		tool, args string
		code       int
		want       []string
	}{
		{"fs__read_text_file", `{"path": ".ssh/id_rsa"}`, exitPolicyDeny,
			[]string{"deny\n", "path: .ssh/id_rsa → ", "~/.ssh/id_rsa (base ~)"}},
		{"fs__read_text_file", `{"path": "./.ssh/id_rsa"}`, exitPolicyDeny, []string{"~/.ssh/id_rsa (base ~)"}},
		{"fs__read_text_file", `{"path": "proj/../.ssh/id_rsa"}`, exitPolicyDeny, []string{"~/.ssh/id_rsa (base ~)"}},
		{"fs__write_file", `{"files": {"~/.ssh/authorized_keys": "ssh-ed25519 AAAA"}}`, exitPolicyDeny,
			[]string{"files.~/.ssh/authorized_keys (key): ~/.ssh/authorized_keys → ~/.ssh/authorized_keys"}},
		{"remote__read", `{"path": ".ssh/id_rsa"}`, exitPolicyDeny, []string{"no base known"}},
		{"fs__create_entities", `{"entities": [{"name": "tea", "observations": ["likes tea"]}]}`, exitPolicyAllow, nil},
		{"fs__read_text_file", `{"path": "notes.txt"}`, exitPolicyAllow, []string{"~/notes.txt (base ~)"}},
	}
	for _, tc := range cases {
		out, errs, code := runLatch(t, dir, "--config", path, "--mode", "auto", "policy", "check", tc.tool, tc.args)
		if code != tc.code {
			t.Errorf("policy check %s %s: exit %d, want %d\n%s%s", tc.tool, tc.args, code, tc.code, out, errs)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("policy check %s %s: output does not say %q:\n%s", tc.tool, tc.args, w, out)
			}
		}
		if tc.want == nil && strings.Contains(out, "paths, as the server") {
			t.Errorf("policy check %s %s: words shown as paths:\n%s", tc.tool, tc.args, out)
		}
	}
}
