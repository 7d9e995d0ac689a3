package themes

import (
	"bytes"
	"strconv"
)

// bgAnswerStart starts a terminal's answer to OSC 11, the question about
// its background colour.
const bgAnswerStart = "\x1b]11;rgb:"

// BackgroundAnswer reads the first OSC 11 answer in b, the terminal's
// background colour as rgb:R/G/B (each component 1 to 4 hex digits), and
// says whether that colour is dark: its luma below the middle. ok is false
// when b holds no such answer.
func BackgroundAnswer(b []byte) (dark, ok bool) {
	for {
		i := bytes.Index(b, []byte(bgAnswerStart))
		if i < 0 {
			return false, false
		}
		b = b[i+len(bgAnswerStart):]
		var c [3]float64
		rest, good := b, true
		for k := range c {
			n := 0
			for n < len(rest) && n < 5 && isHex(rest[n]) {
				n++
			}
			if n == 0 || n > 4 || (k < 2 && (n == len(rest) || rest[n] != '/')) {
				good = false
				break
			}
			v, _ := strconv.ParseUint(string(rest[:n]), 16, 16)
			c[k] = float64(v) / float64(uint64(1)<<(4*n)-1)
			rest = rest[n:]
			if k < 2 {
				rest = rest[1:]
			}
		}
		if good {
			return 0.299*c[0]+0.587*c[1]+0.114*c[2] < 0.5, true
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
