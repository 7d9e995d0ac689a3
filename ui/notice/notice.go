// Package notice tells the person at the terminal that a call waits for
// them: the bell, and a desktop notification where the terminal is known
// to show one (OSC 9 or OSC 777). A terminal latch cannot name gets the
// bell only, never an escape it may not know; so does tmux, whose
// passthrough latch cannot know to be on.
package notice

import (
	"strings"
	"sync"
	"time"
	"unicode"

	"latch/ui/sanitize"
)

// Kind is how a terminal can be told.
type Kind int

const (
	// Bell rings the terminal's bell only.
	Bell Kind = iota
	// OSC9 is iTerm2's notification (ESC ] 9 ; text BEL), also shown by
	// WezTerm, ghostty and kitty.
	OSC9
	// OSC777 is the notify extension's (ESC ] 777 ; notify ; title ; body
	// BEL), shown by foot and Konsole.
	OSC777
)

// Detect says how the terminal latch runs in can be told, from its
// environment: TERM_PROGRAM, TERM and the variables terminals set.
func Detect(getenv func(string) string) Kind {
	term := getenv("TERM")
	switch {
	case getenv("TMUX") != "" || strings.HasPrefix(term, "tmux") || strings.HasPrefix(term, "screen"):
		return Bell // a multiplexer: the escape would reach the outer terminal only with passthrough on
	case getenv("WT_SESSION") != "":
		return Bell // Windows Terminal: OSC 9 is ConEmu's there, and 777 only in recent versions
	}
	switch getenv("TERM_PROGRAM") {
	case "iTerm.app", "WezTerm", "ghostty":
		return OSC9
	case "vscode", "Apple_Terminal":
		return Bell
	}
	switch {
	case term == "xterm-kitty" || getenv("KITTY_WINDOW_ID") != "":
		return OSC9
	case term == "foot" || strings.HasPrefix(term, "foot-"):
		return OSC777
	case getenv("KONSOLE_VERSION") != "":
		return OSC777
	}
	return Bell
}

// maxTool bounds the tool's name in a notification, in characters.
const maxTool = 80

// Sequence is what latch writes to tell the terminal that a call of tool
// waits: the bell, then the notification k shows. The tool's name is
// sanitized and stripped of every control character and of ';' (which
// would end a field of OSC 777); nothing else of the call is in it.
func Sequence(k Kind, tool string) string {
	body := "a call of " + plain(tool) + " waits for your approval (latch inbox)"
	switch k {
	case OSC9:
		return "\a\x1b]9;latch: " + body + "\a"
	case OSC777:
		return "\a\x1b]777;notify;latch;" + body + "\a"
	}
	return "\a"
}

// plain is s on one line, without controls or semicolons, at most maxTool
// characters.
func plain(s string) string {
	s = sanitize.Line(s)
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == maxTool {
			b.WriteString("…")
			break
		}
		if r == ';' || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			r = '_'
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// Throttle lets a notice through at most once every Every: a burst of
// parked calls (a client flooding the gateway) rings once, not once a
// call. The zero Throttle lets every notice through.
type Throttle struct {
	Every time.Duration
	mu    sync.Mutex
	last  time.Time
}

// Allow says whether a notice may be given at now, and if so counts it.
func (t *Throttle) Allow(now time.Time) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.last.IsZero() && now.Sub(t.last) < t.Every {
		return false
	}
	t.last = now
	return true
}
