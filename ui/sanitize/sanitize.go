// Package sanitize neutralises terminal control sequences in untrusted text
// before it is rendered.
//
// Everything latch shows that it did not write itself — model output, tool
// results, tool descriptions, MCP server names, error messages, logs — may be
// controlled by an attacker (a poisoned web page summarised by the model, a
// malicious MCP server, a prompt injection). Written raw to a terminal, such
// text is not just text: escape sequences are commands to the terminal
// emulator. Examples of what a hostile string could do:
//
//   - OSC 52 (ESC ] 52 ; c ; BASE64 BEL) writes the user's clipboard, so the
//     next paste into a shell runs the attacker's command.
//   - OSC 8 (ESC ] 8 ;; URL ST text ESC ] 8 ;; ST) makes innocent-looking text
//     a hyperlink to somewhere else.
//   - OSC 0 / OSC 2 set the window title; some terminals can be made to echo a
//     title back as if it were typed input.
//   - CSI sequences (ESC [ 2 J, ESC [ H, ESC [ 31 m, ...) clear the screen,
//     move the cursor and recolour text, so output can overwrite or fake the
//     UI (for example a forged tool-approval prompt). DCS and the 8-bit C1
//     forms (U+009B CSI, U+009D OSC) do the same without an ESC byte.
//   - Backspace and a lone carriage return overwrite what is already on the
//     line, hiding text the user is meant to see.
//   - Unicode bidi overrides and isolates ("Trojan Source", CVE-2021-42574)
//     reorder what is displayed, so the text the user reads is not the text
//     that is there.
//
// [Text] is the single choke point for all such text. It does not try to
// parse or strip sequences (a parser is one more thing to get wrong);
// instead it replaces every control character with something inert and, where
// possible, visible: ESC becomes "␛", BEL "␇", other C0 controls their
// Unicode Control Pictures (U+2400 + c), DEL "␡", a lone CR "␍". So an
// injected "\x1b]52;c;BASE64\x07" is shown as "␛]52;c;BASE64␇" — harmless,
// and the user can see that something was attempted. C1 controls, bidi
// controls and invalid UTF-8 become U+FFFD. Newline and tab are kept, and
// "\r\n" becomes "\n". All other text, including every printable Unicode
// character, passes through unchanged. [Line] additionally flattens text for
// single-line places.
//
// The package imports only the standard library so that any package may
// depend on it.
package sanitize

import (
	"math/bits"
	"strings"
	"unicode/utf8"
)

// Text returns s with every terminal control sequence neutralised, safe to
// render. If s needs no change it is returned as is, without allocating.
//
// The result contains no C0 control other than '\n' and '\t', no DEL, no C1
// control, no bidi embedding/override/isolate/mark character and no invalid
// UTF-8; Text(Text(s)) == Text(s).
func Text(s string) string { return clean(s, false) }

// Line is [Text] followed by replacing each newline and each tab with a
// single space, for places that must stay on one line (status line, titles,
// names). "\r\n" counts as one newline.
func Line(s string) string { return clean(s, true) }

// Byte classes for the ASCII range, used as bit masks.
const (
	badText = 1 << iota // must change in Text (and so in Line)
	badLine             // must change in Line only ('\n', '\t')
)

// asciiClass[c] says whether ASCII byte c needs changing.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range 0x20 {
		t[c] = badText
	}
	t['\n'], t['\t'] = badLine, badLine
	t[0x7f] = badText
	return t
}()

// asciiRepl[c] is what a control byte c becomes in Text ('\r' is handled
// separately because of "\r\n").
var asciiRepl = func() (t [utf8.RuneSelf]string) {
	for c := range 0x20 {
		t[c] = string(rune(0x2400 + c)) // Control Pictures block
	}
	t[0x7f] = "\u2421" // ␡
	return t
}()

const replacement = "\uFFFD"

// badRune reports whether the valid, non-ASCII rune r must be neutralised:
// C1 controls and Unicode bidi controls.
func badRune(r rune) bool {
	switch {
	case r < 0xa0: // U+0080–U+009F (r >= 0x80 here)
		return true
	case r < 0x061c:
		return false
	case r == 0x061c, // ARABIC LETTER MARK
		r == 0x200e, r == 0x200f, // LRM, RLM
		0x202a <= r && r <= 0x202e, // LRE, RLE, PDF, LRO, RLO
		0x2066 <= r && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	}
	return false
}

const (
	lo8   = 0x0101010101010101
	hi8   = 0x8080808080808080
	del8  = 0x7f7f7f7f7f7f7f7f
	less8 = 0x2020202020202020
)

// scan returns the index of the first byte of s that starts something that
// must change (mask selects the ASCII classes that count), or len(s).
func scan(s string, mask uint8) int {
	i := 0
	for i < len(s) {
		// Fast path: 8 bytes at a time while they are all printable ASCII
		// (0x20–0x7e).
		for i+8 <= len(s) {
			b := s[i : i+8]
			_ = b[7]
			w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
				uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
			// Any byte >= 0x80, < 0x20, or == 0x7f sets a high bit. The
			// "has byte less than n" trick is exact about existence for
			// bytes < 0x80, which is what the first term rules out.
			x := w ^ del8
			if m := (w | (w-less8)&^w | (x-lo8)&^x) & hi8; m != 0 {
				// The lowest flagged byte is a true hit (borrows only
				// propagate upwards from a true hit); skip to it.
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c]&mask != 0 {
				return i
			}
			i++
			continue
		}
		// Common well-formed 2- and 3-byte sequences inline; the bad runes
		// among them are U+0080–U+009F (C2 80–C2 9F), U+061C (D8 9C) and
		// the bidi controls, all of which start with E2.
		if i+1 < len(s) && 0xc2 <= c && c <= 0xdf && s[i+1]&0xc0 == 0x80 {
			if (c == 0xc2 && s[i+1] < 0xa0) || (c == 0xd8 && s[i+1] == 0x9c) {
				return i
			}
			i += 2
			continue
		}
		if i+2 < len(s) && 0xe1 <= c && c <= 0xef && c != 0xed &&
			s[i+1]&0xc0 == 0x80 && s[i+2]&0xc0 == 0x80 {
			if c == 0xe2 && badE2(s[i+1], s[i+2]) {
				return i
			}
			i += 3
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 || badRune(r) { // n == 1 only for invalid UTF-8 here
			return i
		}
		i += n
	}
	return len(s)
}

// badE2 reports whether E2 b1 b2 (a well-formed 3-byte sequence) encodes a
// bidi control: U+200E, U+200F, U+202A–U+202E or U+2066–U+2069.
func badE2(b1, b2 byte) bool {
	switch b1 {
	case 0x80:
		return b2 == 0x8e || b2 == 0x8f || (0xaa <= b2 && b2 <= 0xae)
	case 0x81:
		return 0xa6 <= b2 && b2 <= 0xa9
	}
	return false
}

func clean(s string, line bool) string {
	mask := uint8(badText)
	if line {
		mask |= badLine
	}
	i := scan(s, mask)
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/8 + 8)
	for {
		b.WriteString(s[:i])
		s = s[i:]
		if s == "" {
			return b.String()
		}
		c := s[0]
		n := 1
		switch {
		case c == '\r':
			if len(s) > 1 && s[1] == '\n' {
				// "\r\n" -> "\n": drop the CR; the LF is handled next.
				break
			}
			b.WriteString("\u240d") // ␍
		case c == '\n' || c == '\t':
			b.WriteByte(' ') // only reached in Line
		case c < utf8.RuneSelf:
			b.WriteString(asciiRepl[c])
		default:
			// Invalid byte (n = 1), C1 or bidi control.
			_, n = utf8.DecodeRuneInString(s)
			b.WriteString(replacement)
		}
		s = s[n:]
		i = scan(s, mask)
	}
}
