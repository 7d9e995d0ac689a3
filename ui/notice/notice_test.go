package notice

import (
	"strings"
	"testing"
	"time"
)

// TestDetect: a notification goes only to terminals known to show it;
// tmux, Windows Terminal and any terminal latch cannot name get the bell.
func TestDetect(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want Kind
	}{
		{map[string]string{"TERM_PROGRAM": "iTerm.app"}, OSC9},
		{map[string]string{"TERM_PROGRAM": "WezTerm"}, OSC9},
		{map[string]string{"TERM_PROGRAM": "ghostty"}, OSC9},
		{map[string]string{"TERM": "xterm-kitty"}, OSC9},
		{map[string]string{"TERM": "foot"}, OSC777},
		{map[string]string{"TERM": "xterm-256color", "KONSOLE_VERSION": "230401"}, OSC777},
		{map[string]string{"TERM": "xterm-256color"}, Bell},
		{map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, Bell},
		{map[string]string{"TERM_PROGRAM": "iTerm.app", "TMUX": "/tmp/tmux-1/default,1,0"}, Bell},
		{map[string]string{"TERM": "tmux-256color", "TERM_PROGRAM": "WezTerm"}, Bell},
		{map[string]string{"TERM": "screen"}, Bell},
		{map[string]string{"WT_SESSION": "x", "TERM_PROGRAM": "WezTerm"}, Bell},
		{map[string]string{}, Bell},
	} {
		if got := Detect(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("Detect(%v) = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestSequencePlantsNothing: a tool name with escapes, a BEL, a C1 string
// terminator or a semicolon cannot end the notification early or start an
// escape of its own; the bell rings first in every kind.
func TestSequencePlantsNothing(t *testing.T) {
	evil := "mem__x\x1b]52;c;SGVsbG8=\x07\u009c;rm\u202e" + strings.Repeat("y", 500)
	for _, k := range []Kind{Bell, OSC9, OSC777} {
		s := Sequence(k, evil)
		if !strings.HasPrefix(s, "\a") {
			t.Errorf("kind %v: %q does not ring the bell first", k, s)
		}
		if k == Bell {
			if s != "\a" {
				t.Errorf("bell only: %q", s)
			}
			continue
		}
		inner := strings.TrimSuffix(strings.TrimPrefix(s, "\a"), "\a")
		if strings.ContainsAny(inner[1:], "\a\x1b\u009c\u202e") {
			t.Errorf("kind %v: the tool's name put a control into the escape: %q", k, inner)
		}
		if k == OSC777 && strings.Count(inner, ";") != 3 {
			t.Errorf("OSC 777 with more fields than notify;title;body: %q", inner)
		}
		if len([]rune(inner)) > 200 {
			t.Errorf("kind %v: %d characters; the tool's name is not bounded", k, len([]rune(inner)))
		}
		if !strings.Contains(inner, "mem__x") {
			t.Errorf("kind %v: the tool's name is missing: %q", k, inner)
		}
	}
}

// TestThrottle: a burst rings once; after the pause, again.
func TestThrottle(t *testing.T) {
	th := &Throttle{Every: 2 * time.Second}
	now := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	n := 0
	for i := range 1000 {
		if th.Allow(now.Add(time.Duration(i) * time.Millisecond)) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("a burst of 1000 in a second rang %d times, want 1", n)
	}
	if !th.Allow(now.Add(3 * time.Second)) {
		t.Error("after the pause, no ring")
	}
}
