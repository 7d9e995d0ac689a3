package mcp

import (
	"path/filepath"
	"slices"
	"strings"
)

// packageRunners fetch a server's package before they start it, on the
// first start a download that can outlast connect_timeout.
var packageRunners = []string{"npx", "uvx", "bunx", "pnpx", "pipx"}

// packageRunner is the name of the package runner cfg's command is
// (npx, uvx…), or "".
func packageRunner(cfg ServerConfig) string {
	base := strings.TrimSuffix(strings.ToLower(filepath.Base(cfg.Command)), ".cmd")
	base = strings.TrimSuffix(base, ".exe")
	if slices.Contains(packageRunners, base) {
		return base
	}
	return ""
}
