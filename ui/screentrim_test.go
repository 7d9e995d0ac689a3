package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"
)

// cell is one cell as a terminal draws it: its grapheme and style.
type cell struct {
	g  string
	st sgr
}

func (c cell) shows() bool { return c.g != " " || c.st.visibleBlank() }

// cellsOf is what a terminal draws for a row.
func cellsOf(row string) []cell {
	var out []cell
	var st sgr
	state := byte(0)
	for i := 0; i < len(row); {
		seq, width, n, next := ansi.DecodeSequence(row[i:], state, nil)
		state = next
		i += n
		switch {
		case width > 0:
			out = append(out, cell{seq, st})
			for range width - 1 {
				out = append(out, cell{"", st})
			}
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
			st.apply(seq[2 : len(seq)-1])
		}
	}
	return out
}

// TestTidyRowDrawsTheSameCells: a tidied row draws every visible cell as
// the row did, in the same style, and leaves only blanks that show
// nothing; it is never longer, and tidying it again changes nothing.
func TestTidyRowDrawsTheSameCells(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	fg := lipgloss.NewStyle().Foreground(lipgloss.Color("#d0d0d0"))
	bg := lipgloss.NewStyle().Background(lipgloss.Color("#303030")).Foreground(lipgloss.Color("#ffffff"))
	rows := []string{
		"",
		"plain text   ",
		fg.Width(40).Render("padded with styled blanks"),
		fg.Render("a") + fg.Render(" ") + fg.Render("") + fg.Render("b") + fg.Render("   "),
		bg.Width(30).Render("a bar whose blanks show"),
		fg.Render("x") + lipgloss.NewStyle().Underline(true).Render("  under  ") + fg.Render("   "),
		lipgloss.NewStyle().Reverse(true).Render("   ") + "tail",
		"\x1b[1;38;5;75mbold\x1b[22m thin\x1b[0m   \x1b[4:3mcurly\x1b[4:0m  \x1b[9m \x1b[29m",
		"\x1b[38:2::1:2:3mcolon colour\x1b[39m \x1b[48;5;1m \x1b[49m  ",
		"wide 漢字 " + fg.Render("並び") + "  ",
		"\x1b[7mrev\x1b[27m \x1b[53mover\x1b[55m \x1b[8mhidden\x1b[28m  ",
	}
	for _, row := range rows {
		got := tidyRow(row)
		if len(got) > len(row)+len("\x1b[m") {
			t.Errorf("tidied row is longer:\n %q\n→%q", row, got)
		}
		if again := tidyRow(got); again != got {
			t.Errorf("tidying twice changed it:\n %q\n→%q", got, again)
		}
		before, after := cellsOf(row), cellsOf(got)
		for i := range max(len(before), len(after)) {
			b, a := cell{" ", sgr{}}, cell{" ", sgr{}}
			if i < len(before) {
				b = before[i]
			}
			if i < len(after) {
				a = after[i]
			}
			if b.shows() && a != b || !b.shows() && a.shows() {
				t.Errorf("cell %d: %+v became %+v\n %q\n→%q", i, b, a, row, got)
				break
			}
		}
		if strings.HasSuffix(got, " ") {
			t.Errorf("ends in a blank: %q", got)
		}
	}
}

// TestTidyRowWritesOnlyTextStyleAndLinks: whatever reached a row, the
// terminal gets its text, its style and hyperlinks only — never a title,
// a clipboard write, a cursor move or a screen clear.
func TestTidyRowWritesOnlyTextStyleAndLinks(t *testing.T) {
	row := "a\x1b]0;title\x07b\x1b]52;c;ZXZpbA==\x07c\x1b[2J\x1b[5;5Hd\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\"
	got := tidyRow(row)
	if want := "abcd\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\"; got != want {
		t.Errorf("tidyRow = %q, want %q", got, want)
	}
}

// TestSGRShortcutsApplyAsEachParameter: the SGR strings apply takes a
// short way (a reset, one 256-colour code) change a style as applying
// their parameters one by one does.
func TestSGRShortcutsApplyAsEachParameter(t *testing.T) {
	starts := []string{"", "1;3;38;5;9;48;5;17", "4:3;58;5;200;7"}
	for _, start := range starts {
		for _, p := range []string{"", "0", "38;5;252", "48;5;63", "58;5;1", "38;5;", "38;5;1;1", "38;5;1:2", "38;2;1;2;3", "39", "18;5;3"} {
			var fast, each sgr
			fast.apply(start)
			each.apply(start)
			fast.apply(p)
			each.applyEach(p)
			if fast != each {
				t.Errorf("after %q, %q: %q, one by one %q", start, p, fast, each)
			}
		}
	}
}
