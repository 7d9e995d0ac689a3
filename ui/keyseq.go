package ui

import (
	"reflect"
	"strconv"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"
)

// Disambiguated keys. latch asks the terminal, while it holds the
// alternate screen (TeaOutput), to report keys it would otherwise send
// alike as sequences of their own: the kitty keyboard protocol's
// "disambiguate" flag and xterm's modifyOtherKeys at level 1 (level 2
// changes ordinary keys as well). A terminal knows one, both or neither.
// Then Shift+Enter is "CSI 13;2u" (kitty) or "CSI 27;2;13~" (xterm),
// not the Enter that sends. Under the kitty flag Esc, Ctrl+letters,
// Alt+letters and the keypad come as CSI u too. Bubble Tea v1 knows none
// of them: they reach Update as an unknown CSI sequence, and decodeKey
// turns each into the key it stands for.
const (
	keysOn  = "\x1b[>1u\x1b[>4;1m"
	keysOff = "\x1b[<u\x1b[>4m"
)

// csiMsgType is the type of Bubble Tea's message for a CSI sequence it
// does not know (unexported: its bytes are read by reflection).
const csiMsgType = "unknownCSISequenceMsg"

// decodeKey returns the key msg stands for when it is a disambiguated key
// sequence, else msg itself.
func decodeKey(msg tea.Msg) tea.Msg {
	v := reflect.ValueOf(msg)
	if !v.IsValid() || v.Kind() != reflect.Slice || v.Type().Elem().Kind() != reflect.Uint8 ||
		v.Type().Name() != csiMsgType || v.Type().PkgPath() != reflect.TypeOf(tea.KeyMsg{}).PkgPath() {
		return msg
	}
	if k, ok := parseKeySeq(string(v.Bytes())); ok {
		return tea.KeyMsg(k)
	}
	return msg
}

// parseKeySeq reads "CSI code[:alts] ; mods[:event] u" (kitty) and
// "CSI 27 ; mods ; code ~" (xterm's modifyOtherKeys). A key release
// (event 3) is not a key.
func parseKeySeq(seq string) (tea.Key, bool) {
	body, ok := strings.CutPrefix(seq, "\x1b[")
	if !ok || body == "" {
		return tea.Key{}, false
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
				return tea.Key{}, false
			}
		}
		return keyFor(num(0), max(num(1), 1))
	case final == '~' && len(ps) == 3 && num(0) == 27:
		return keyFor(num(2), num(1))
	}
	return tea.Key{}, false
}

// Modifier bits of a key sequence (its parameter less one). Caps Lock
// and Num Lock are left out: they do not change what a key does here.
const (
	modShift = 1
	modAlt   = 2
	modCtrl  = 4
	modOther = 8 | 16 | 32 // Super, Hyper, Meta: latch binds none
)

// kittyKeypad is the kitty protocol's keypad keys, by code.
var kittyKeypad = map[int]tea.Key{
	57409: {Type: tea.KeyRunes, Runes: []rune{'.'}}, 57410: {Type: tea.KeyRunes, Runes: []rune{'/'}},
	57411: {Type: tea.KeyRunes, Runes: []rune{'*'}}, 57412: {Type: tea.KeyRunes, Runes: []rune{'-'}},
	57413: {Type: tea.KeyRunes, Runes: []rune{'+'}}, 57415: {Type: tea.KeyRunes, Runes: []rune{'='}},
	57416: {Type: tea.KeyRunes, Runes: []rune{','}},
	57417: {Type: tea.KeyLeft}, 57418: {Type: tea.KeyRight}, 57419: {Type: tea.KeyUp}, 57420: {Type: tea.KeyDown},
	57421: {Type: tea.KeyPgUp}, 57422: {Type: tea.KeyPgDown}, 57423: {Type: tea.KeyHome}, 57424: {Type: tea.KeyEnd},
	57425: {Type: tea.KeyInsert}, 57426: {Type: tea.KeyDelete},
}

// keyFor is the key of a code (a Unicode code point, or a kitty keypad
// code) with modifiers mods (1: none). Shift+Enter (and Ctrl+Enter) is
// Ctrl+J, the newline key; Alt+Enter stays Alt+Enter, also a newline.
func keyFor(code, mods int) (tea.Key, bool) {
	if code < 0 || mods < 1 {
		return tea.Key{}, false
	}
	bits := (mods - 1) &^ (64 | 128)
	if bits&modOther != 0 {
		return tea.Key{}, false
	}
	shift, alt, ctrl := bits&modShift != 0, bits&modAlt != 0, bits&modCtrl != 0
	switch {
	case code >= 57399 && code <= 57408: // keypad digits
		return tea.Key{Type: tea.KeyRunes, Runes: []rune{rune('0' + code - 57399)}, Alt: alt}, true
	case code == 13 || code == 57414: // Enter, keypad Enter
		if (shift || ctrl) && !alt {
			return tea.Key{Type: tea.KeyCtrlJ}, true
		}
		return tea.Key{Type: tea.KeyEnter, Alt: alt}, true
	case code == 27:
		return tea.Key{Type: tea.KeyEsc, Alt: alt}, true
	case code == 9:
		if shift {
			return tea.Key{Type: tea.KeyShiftTab}, true
		}
		return tea.Key{Type: tea.KeyTab, Alt: alt}, true
	case code == 127 || code == 8:
		return tea.Key{Type: tea.KeyBackspace, Alt: alt}, true
	}
	if k, ok := kittyKeypad[code]; ok {
		k.Alt = alt
		return k, true
	}
	if ctrl {
		return ctrlKey(rune(code), alt)
	}
	r := rune(code)
	if !unicode.IsPrint(r) {
		return tea.Key{}, false
	}
	if shift {
		r = unicode.ToUpper(r)
	}
	if r == ' ' {
		return tea.Key{Type: tea.KeySpace, Runes: []rune{' '}, Alt: alt}, true
	}
	return tea.Key{Type: tea.KeyRunes, Runes: []rune{r}, Alt: alt}, true
}

// ctrlKey is Ctrl with r: the control character the legacy encoding sends.
func ctrlKey(r rune, alt bool) (tea.Key, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return tea.Key{Type: tea.KeyCtrlA + tea.KeyType(r-'a'), Alt: alt}, true
	case r == ' ' || r == '@' || r == '2':
		return tea.Key{Type: tea.KeyCtrlAt, Alt: alt}, true
	case r == '[':
		return tea.Key{Type: tea.KeyEsc, Alt: alt}, true
	case r == '\\':
		return tea.Key{Type: tea.KeyCtrlBackslash, Alt: alt}, true
	case r == ']':
		return tea.Key{Type: tea.KeyCtrlCloseBracket, Alt: alt}, true
	case r == '^' || r == '6':
		return tea.Key{Type: tea.KeyCtrlCaret, Alt: alt}, true
	case r == '_' || r == '-':
		return tea.Key{Type: tea.KeyCtrlUnderscore, Alt: alt}, true
	}
	return tea.Key{}, false
}
