package eventlog

import (
	"encoding/json"
	"unicode/utf8"
)

// Marshal encodes an event in its wire form: one line of JSON, as the
// session log and --json write it. Control characters never appear raw:
// encoding/json escapes C0 controls, and Marshal also escapes what it
// leaves, DEL (U+007F), the C1 controls (U+0080–U+009F) and the bidi
// controls, as \uXXXX. So a log or --json output shown in a terminal
// (cat, less, jq's raw output aside) cannot drive it, and a decoder still
// reads back the same text.
func Marshal(e Event) ([]byte, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return escapeControls(b), nil
}

// escapeControls rewrites DEL, C1 and bidi controls in JSON text as \u
// escapes. They can only occur inside strings (JSON's own syntax uses
// none of them), where an escape means the same character.
func escapeControls(b []byte) []byte {
	var out []byte
	last := 0
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf && c != 0x7f {
			i++
			continue
		}
		r, n := rune(c), 1
		if c >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(b[i:])
		}
		if isControlRune(r) {
			if out == nil {
				out = make([]byte, 0, len(b)+16)
			}
			out = append(out, b[last:i]...)
			out = append(out, `\u`...)
			out = append(out, "0123456789abcdef"[r>>12&0xf], "0123456789abcdef"[r>>8&0xf],
				"0123456789abcdef"[r>>4&0xf], "0123456789abcdef"[r&0xf])
			last = i + n
		}
		i += n
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// isControlRune reports the runes escapeControls escapes: DEL, C1
// controls, bidi controls and the line and paragraph separators.
func isControlRune(r rune) bool {
	switch {
	case 0x7f <= r && r <= 0x9f,
		r == 0x061c, r == 0x200e, r == 0x200f,
		0x2028 <= r && r <= 0x202e,
		0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}
