package sanitize

import (
	"strings"
	"testing"
)

// TestFirstLine: a server's error shown on one line keeps its first line
// only, says more followed, shows its escapes inert and is cut.
func TestFirstLine(t *testing.T) {
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"  the disk is on fire \x1b[2J\r\nsecond line", 300, "the disk is on fire ␛[2J …"},
		{"one\tline", 300, "one line"},
		{"\n\n", 300, ""},
		{strings.Repeat("é", 12), 10, strings.Repeat("é", 10) + "…"},
	} {
		if got := FirstLine(c.in, c.max); got != c.want {
			t.Errorf("FirstLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}
