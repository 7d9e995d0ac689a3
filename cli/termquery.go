package cli

import (
	"strconv"
	"strings"
	"time"

	// Its init pins lipgloss's background answer before Bubble Tea's init
	// would ask the terminal (up to 5 s); see its doc.
	_ "earlyinit"
)

// bgQueryTimeout bounds the wait for the terminal's background colour:
// one a terminal answers comes in milliseconds, and DA1 ends the wait of
// one that does not know the question.
const bgQueryTimeout = 200 * time.Millisecond

// darkFGBG reads $COLORFGBG ("15;0": foreground;background, ANSI colour
// numbers): light for a background of 7 (white) or 9 to 15 but 8 (bright
// black), else, and when it says nothing, dark.
func darkFGBG(v string) bool {
	i := strings.LastIndex(v, ";")
	if i < 0 {
		return true
	}
	n, err := strconv.Atoi(v[i+1:])
	return err != nil || !(n == 7 || (n >= 9 && n <= 15))
}
