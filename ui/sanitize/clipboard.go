package sanitize

import (
	"strings"
	"unicode/utf8"
)

// Clipboard returns s as it may be put on the user's clipboard: every
// control character except newline and tab is removed (C0, DEL, C1), and
// so are the bidi controls and invalid UTF-8. "\r\n" becomes "\n". Text
// pasted into a shell is typed into it: an ESC, a CR or the end of a
// bracketed paste (ESC [ 201 ~) there would run what follows, so nothing
// of the kind is kept, not even as a visible stand-in.
func Clipboard(s string) string {
	if scan(s, badText) == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
				continue
			}
			if asciiClass[c]&badText == 0 {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !(r == utf8.RuneError && n == 1) && !badRune(r) {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
