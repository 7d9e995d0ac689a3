package config

import (
	"strings"
	"testing"
)

// TestLoadConfigClineMarketplaceNames: Cline's marketplace names servers
// by their repository's address; such a file loads, each address server
// under its last segment (de-duplicated against a server already called
// so), keeping the file's name, with a notice naming both.
func TestLoadConfigClineMarketplaceNames(t *testing.T) {
	cfg, err := Load(copyFixture(t, "cline_marketplace.json"), fakeEnv(nil))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range cfg.Servers {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "brave-search context7-mcp github github-2" {
		t.Fatalf("servers = %s", got)
	}
	if s := serverNamed(t, cfg, "github-2"); s.FileName != "github.com/modelcontextprotocol/servers/tree/main/src/github" || s.Args[1] != "@modelcontextprotocol/server-github" {
		t.Errorf("github-2 = %+v", s)
	}
	if s := serverNamed(t, cfg, "github"); s.FileName != "" || s.Command != "gh-mcp" {
		t.Errorf("github = %+v", s)
	}
	if !serverNamed(t, cfg, "brave-search").Disabled {
		t.Error("brave-search is disabled in the file")
	}
	if w := warningsWith(cfg, `"github.com/upstash/context7-mcp": called "context7-mcp"`); len(w) != 1 {
		t.Errorf("notice = %q", cfg.Warnings)
	}
}

// TestSafeNameHostile: a name made to disturb a screen or to pass for
// another server's still becomes a plain, valid, distinct name.
func TestSafeNameHostile(t *testing.T) {
	keys := []string{"evil.com/\x1b[2J\x1b]52;c;AAAA\x07", "x/" + strings.Repeat("a", 100), "y/" + strings.Repeat("a", 100), "a/../../", "b/fs", "fs"}
	names := safeNames(keys)
	seen := map[string]bool{}
	for _, k := range keys {
		n := names[k]
		if !validServerName(n) || seen[n] {
			t.Errorf("%q -> %q: invalid or taken", k, n)
		}
		seen[n] = true
	}
	if names["fs"] != "fs" || names["b/fs"] != "fs-2" {
		t.Errorf("fs: %q, b/fs: %q", names["fs"], names["b/fs"])
	}
}
