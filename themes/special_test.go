package themes

import (
	"strings"
	"testing"
)

// TestMonoBase: a user theme may build on the monochrome theme.
func TestMonoBase(t *testing.T) {
	t.Parallel()
	for _, base := range []string{"mono", "no-color", "Mono"} {
		home := t.TempDir()
		writeTheme(t, home, "quiet", `{"base": "`+base+`", "glamour": "ascii"}`)
		p, warns, err := FromEnv("quiet", true, env(nil), home)
		if err != nil || len(warns) != 0 {
			t.Fatalf("base %q: %v %q", base, err, warns)
		}
		if !p.Mono || p.Name != "quiet" || p.Glamour != "ascii" || p.Text != "" || p.Accent != "" {
			t.Errorf("base %q gave %+v", base, p)
		}
		if st := Build(p); st.Palette.Name != "quiet" {
			t.Errorf("Build: %+v", st.Palette)
		}
	}
}

// TestUsageListsEveryTheme: the --theme help lists every built-in theme.
func TestUsageListsEveryTheme(t *testing.T) {
	t.Parallel()
	u := Usage()
	if len(Names()) != 9 {
		t.Fatalf("Names() = %q", Names())
	}
	for _, n := range Names() {
		if !strings.Contains(u, n+",") && !strings.Contains(u, n+" ") {
			t.Errorf("the usage %q lacks %q", u, n)
		}
	}
	if !strings.Contains(u, "NAME.json") {
		t.Errorf("the usage %q does not mention user themes", u)
	}
}
