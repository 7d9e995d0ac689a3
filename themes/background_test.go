package themes

import "testing"

func TestBackgroundAnswer(t *testing.T) {
	for _, c := range []struct {
		in       string
		dark, ok bool
	}{
		{"\x1b]11;rgb:ffff/ffff/ffff\x1b\\", false, true},
		{"\x1b]11;rgb:0000/0000/0000\a", true, true},
		{"\x1b]11;rgb:f0/f0/e8\x1b\\\x1b[?62c", false, true},
		{"\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\", true, true},
		{"\x1b]11;rgb:8/8/8\a", false, true}, // 8/15: just past the middle
		{"typed\x1b]11;rgb:ffff/ffff/ffff\a", false, true},
		{"\x1b]11;rgb:zz/00/00\a\x1b]11;rgb:0/0/0\a", true, true}, // the first whole one
		{"\x1b]10;rgb:ffff/ffff/ffff\a", false, false},            // the foreground's
		{"\x1b]11;rgb:fffff/0/0\a", false, false},
		{"\x1b]11;rgb:ff/ff\a", false, false},
		{"\x1b]11;rgb:ff/ff/", false, false},
		{"", false, false},
	} {
		dark, ok := BackgroundAnswer([]byte(c.in))
		if dark != c.dark || ok != c.ok {
			t.Errorf("BackgroundAnswer(%q) = %v, %v; want %v, %v", c.in, dark, ok, c.dark, c.ok)
		}
	}
}
