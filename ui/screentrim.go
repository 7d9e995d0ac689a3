package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// tidyRow writes a row again with the fewest style codes that draw the
// same cells: a style is set only when a visible cell needs it (never for
// an empty styled segment, never again when it is already in effect), a
// blank that shows nothing (a space with no background, reverse video,
// underline or strike) takes whatever style is in effect, and the row ends
// at its last visible cell, with the style reset there; the terminal
// clears the rest of the row (EL). The styles the theme and the markdown
// renderer write (a colour set and reset around every word, styled padding
// to the edge) cost the terminal many times the row's text otherwise.
func tidyRow(row string) string {
	var b strings.Builder
	var want, have sgr
	pendingBlanks := 0 // invisible blanks not written yet
	state := byte(0)
	for i := 0; i < len(row); {
		seq, width, n, next := ansi.DecodeSequence(row[i:], state, nil)
		state = next
		i += n
		switch {
		case width > 0 && seq == " " && !want.visibleBlank():
			pendingBlanks++
		case width > 0:
			if pendingBlanks > 0 {
				if have.visibleBlank() {
					b.WriteString(have.to(sgr{}))
					have = sgr{}
				}
				b.WriteString(strings.Repeat(" ", pendingBlanks))
				pendingBlanks = 0
			}
			b.WriteString(have.to(want))
			have = want
			b.WriteString(seq)
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
			want.apply(seq[2 : len(seq)-1])
		case strings.HasPrefix(seq, "\x1b]8;"):
			b.WriteString(seq) // a hyperlink (OSC 8) stays where it is
		}
		// Anything else (another OSC: a title, the clipboard; a cursor
		// move) is not written: a row is text and its style.
	}
	b.WriteString(have.to(sgr{}))
	return b.String()
}

// sgr is a text style as SGR parameters, one slot per attribute a code
// sets ("" = the terminal's default).
type sgr [slotCount]string

const (
	slotFG = iota
	slotBG
	slotUL // underline colour
	slotIntensity
	slotItalic
	slotUnderline
	slotBlink
	slotReverse
	slotConceal
	slotStrike
	slotOverline
	slotCount
)

// slotResets are the codes that return each slot to the default.
var slotResets = [slotCount]string{"39", "49", "59", "22", "23", "24", "25", "27", "28", "29", "55"}

func (s sgr) visibleBlank() bool {
	return s[slotBG] != "" || s[slotReverse] != "" || s[slotUnderline] != "" || s[slotStrike] != ""
}

// to is the sequence that changes style s into t ("" when they are the
// same): a plain reset when t is the default, else only the slots that
// differ.
func (s sgr) to(t sgr) string {
	if s == t {
		return ""
	}
	if t == (sgr{}) {
		return "\x1b[m"
	}
	var ps []string
	for i := range t {
		switch {
		case s[i] == t[i]:
		case t[i] == "":
			ps = append(ps, slotResets[i])
		default:
			ps = append(ps, t[i])
		}
	}
	return "\x1b[" + strings.Join(ps, ";") + "m"
}

// apply applies an SGR parameter string ("38;5;252", "0", "4:3", "").
func (s *sgr) apply(params string) {
	if params == "0" || params == "" {
		*s = sgr{} // the most frequent: a reset after each styled word
		return
	}
	if len(params) > 5 && params[2:5] == ";5;" && !strings.ContainsAny(params[5:], ";:") {
		switch params[:2] {
		case "38", "48", "58": // next: one 256-colour code, as glamour writes them
			s[colourSlot(int(params[0]-'0')*10+8)] = params
			return
		}
	}
	s.applyEach(params)
}

// applyEach is apply, taking params one by one.
func (s *sgr) applyEach(params string) {
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		code, sub, _ := strings.Cut(ps[i], ":")
		n, err := strconv.Atoi(code)
		if code == "" {
			n, err = 0, nil
		}
		if err != nil {
			continue
		}
		switch {
		case n == 38 || n == 48 || n == 58:
			k := colourArgs(ps, i, sub)
			s[colourSlot(n)] = strings.Join(ps[i:i+1+k], ";")
			i += k
		default:
			s.set(n, ps[i])
		}
	}
}

// colourSlot is the slot an extended colour code (38, 48, 58) sets.
func colourSlot(n int) int {
	switch n {
	case 38:
		return slotFG
	case 48:
		return slotBG
	}
	return slotUL
}

// set applies one plain SGR code.
func (s *sgr) set(n int, p string) {
	switch {
	case n == 0:
		*s = sgr{}
	case n >= 30 && n <= 37, n >= 90 && n <= 97:
		s[slotFG] = p
	case n >= 40 && n <= 47, n >= 100 && n <= 107:
		s[slotBG] = p
	case n == 1 || n == 2:
		s[slotIntensity] = p
	case n == 3:
		s[slotItalic] = p
	case n == 4 && p == "4:0":
		s[slotUnderline] = ""
	case n == 4 || n == 21:
		s[slotUnderline] = p
	case n == 5 || n == 6:
		s[slotBlink] = p
	case n == 7:
		s[slotReverse] = p
	case n == 8:
		s[slotConceal] = p
	case n == 9:
		s[slotStrike] = p
	case n == 53:
		s[slotOverline] = p
	default:
		for i, r := range slotResets {
			if p == r {
				s[i] = ""
			}
		}
	}
}

// colourArgs is how many parameters after ps[i] an extended colour
// (38/48/58 ;5;N or ;2;R;G;B) takes; none when written with colons.
func colourArgs(ps []string, i int, sub string) int {
	if sub != "" || i+1 >= len(ps) {
		return 0
	}
	switch ps[i+1] {
	case "5":
		return min(2, len(ps)-i-1)
	case "2":
		return min(4, len(ps)-i-1)
	}
	return 0
}
