package ui

import (
	"strconv"
	"strings"
	"unicode"
)

// Disambiguated keys. latch asks the terminal, while it holds the
// alternate screen (TeaOutput), to report keys it would otherwise send
// alike as sequences of their own: the kitty keyboard protocol's
// "disambiguate" flag and xterm's modifyOtherKeys at level 1 (level 2
// changes ordinary keys as well). A terminal knows one, both or neither.
// Then Shift+Enter is "CSI 13;2u" (kitty) or "CSI 27;2;13~" (xterm),
// not the Enter that sends. Under the kitty flag Esc, Ctrl+letters,
// Alt+letters and the keypad come as CSI u too. Bubble Tea v1 knows none
// of them: TeaInput turns each, in the bytes read from the terminal,
// into the legacy bytes of the key it stands for (keyFor) before Bubble
// Tea reads them.
const (
	keysOn  = "\x1b[>1u\x1b[>4;1m"
	keysOff = "\x1b[<u\x1b[>4m"
)

// parseKeySeq reads "CSI code[:alts] ; mods[:event] u" (kitty) and
// "CSI 27 ; mods ; code ~" (xterm's modifyOtherKeys), and returns the
// legacy bytes of the key. A key release (event 3) is "": no key.
func parseKeySeq(seq string) (string, bool) {
	body, ok := strings.CutPrefix(seq, "\x1b[")
	if !ok || body == "" {
		return "", false
	}
	final, ps := body[len(body)-1], strings.Split(body[:len(body)-1], ";")
	num := func(i int) int {
		if i >= len(ps) {
			return 0
		}
		s, _, _ := strings.Cut(ps[i], ":")
		n, err := strconv.Atoi(s)
		if err != nil {
			return -1
		}
		return n
	}
	switch {
	case final == 'u' && len(ps) <= 3:
		if len(ps) > 1 {
			if _, ev, _ := strings.Cut(ps[1], ":"); ev == "3" {
				return "", true
			}
		}
		return keyFor(num(0), max(num(1), 1))
	case final == '~' && len(ps) == 3 && num(0) == 27:
		return keyFor(num(2), num(1))
	}
	return "", false
}

// Modifier bits of a key sequence (its parameter less one). Caps Lock
// and Num Lock are left out: they do not change what a key does here.
const (
	modShift = 1
	modAlt   = 2
	modCtrl  = 4
	modOther = 8 | 16 | 32 // Super, Hyper, Meta: latch binds none
)

// kittyKeypad is the legacy bytes of the kitty protocol's keypad keys,
// by code.
var kittyKeypad = map[int]string{
	57409: ".", 57410: "/", 57411: "*", 57412: "-", 57413: "+", 57415: "=", 57416: ",",
	57417: "\x1b[D", 57418: "\x1b[C", 57419: "\x1b[A", 57420: "\x1b[B",
	57421: "\x1b[5~", 57422: "\x1b[6~", 57423: "\x1b[H", 57424: "\x1b[F",
	57425: "\x1b[2~", 57426: "\x1b[3~",
}

// keyFor is the legacy bytes of the key of a code (a Unicode code point,
// or a kitty keypad code) with modifiers mods (1: none), as a terminal
// sends them without disambiguation: Alt is an Esc before the key.
// Shift+Enter (and Ctrl+Enter) is Ctrl+J, the newline key; Alt+Enter
// stays Alt+Enter, also a newline. The bytes are never longer than a
// sequence for the key.
func keyFor(code, mods int) (string, bool) {
	if code < 0 || mods < 1 {
		return "", false
	}
	bits := (mods - 1) &^ (64 | 128)
	if bits&modOther != 0 {
		return "", false
	}
	shift, alt, ctrl := bits&modShift != 0, bits&modAlt != 0, bits&modCtrl != 0
	esc := ""
	if alt {
		esc = "\x1b"
	}
	switch {
	case code >= 57399 && code <= 57408: // keypad digits
		return esc + string(rune('0'+code-57399)), true
	case code == 13 || code == 57414: // Enter, keypad Enter
		if (shift || ctrl) && !alt {
			return "\n", true
		}
		return esc + "\r", true
	case code == 27:
		return esc + "\x1b", true
	case code == 9:
		if shift {
			return "\x1b[Z", true
		}
		return esc + "\t", true
	case code == 127 || code == 8:
		return esc + "\x7f", true
	}
	if s, ok := kittyKeypad[code]; ok {
		return esc + s, true
	}
	if ctrl {
		c, ok := ctrlByte(rune(code))
		return esc + string(c), ok
	}
	r := rune(code)
	if !unicode.IsPrint(r) || alt && r == '[' {
		// Esc and "[" would start a sequence with the bytes after them.
		return "", false
	}
	if shift {
		r = unicode.ToUpper(r)
	}
	return esc + string(r), true
}

// ctrlByte is Ctrl with r: the control character the legacy encoding sends.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r == ' ' || r == '@' || r == '2':
		return 0, true
	case r == '[':
		return 0x1b, true
	case r == '\\':
		return 0x1c, true
	case r == ']':
		return 0x1d, true
	case r == '^' || r == '6':
		return 0x1e, true
	case r == '_' || r == '-':
		return 0x1f, true
	}
	return 0, false
}
