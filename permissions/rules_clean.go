package permissions

import (
	"path"
	"strings"
)

// cleanPath is path.Clean(s), found at once for a path that is clean
// already (most are): path.Clean reads it byte by byte, which for a long
// path costs as much as matching it against many rules. A path with ".."
// anywhere, or one that is not clean, is left to path.Clean.
func cleanPath(s string) string {
	if s != "" && !strings.Contains(s, "..") && !strings.Contains(s, "//") && !strings.Contains(s, "/./") &&
		!strings.HasPrefix(s, "./") && !strings.HasSuffix(s, "/.") && (s == "/" || !strings.HasSuffix(s, "/")) {
		return s
	}
	return path.Clean(s)
}
