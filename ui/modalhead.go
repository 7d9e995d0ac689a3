package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"latch/ui/sanitize"
)

// boxRow is a function that makes s one row of a box w wide: cut, with
// …, when compact; else as it is (the box wraps it).
func boxRow(w int, compact bool) func(string) string {
	return func(s string) string {
		if compact {
			return ansi.Truncate(s, w-4, "…")
		}
		return s
	}
}

// head writes the permission box's rows above its arguments to b: the
// title, the client, the server and tool, the hints and a rule's notice;
// compact, with no blank row, the server and tool on one row, each of
// the others cut to one, and no hints in the save step. It returns the
// notice's rows, as written.
func (md *modal) head(m *Model, b *strings.Builder, w int, compact bool) string {
	st := m.st.Dialog
	c := md.card
	row := boxRow(w, compact)
	title := "Allow this tool call?"
	if md.approval != "" {
		title = "Approve this tool call? (" + md.approval + ")"
	}
	b.WriteString(st.Title.Render(row(title)) + "\n")
	if !compact {
		b.WriteString("\n")
	}
	if c.client != "" {
		b.WriteString(row(fmt.Sprintf("from    %s (via latch serve)", sanitize.Line(c.client))) + "\n")
	}
	if compact {
		b.WriteString(row("tool    "+sanitize.Line(c.tool)+"  (server "+sanitize.Line(c.server)+")") + "\n")
	} else {
		fmt.Fprintf(b, "server  %s\ntool    %s\n", sanitize.Line(c.server), sanitize.Line(c.tool))
	}
	switch {
	case compact && md.save != nil:
		// The save step, short of rows: its choices and where they go
		// come first; Esc goes back to the hints and the arguments.
	case c.readOnly:
		b.WriteString("hints   read-only\n")
	case c.destroys && c.unsaid:
		b.WriteString(m.st.Chat.Error.Render(row("hints   none: may change data (the server does not say)")) + "\n")
	case c.destroys:
		b.WriteString(m.st.Chat.Error.Render(row("hints   destructive: it may change or delete data")) + "\n")
	}
	notice := md.noticeLines(m, w-4)
	if compact && notice != "" {
		notice = m.st.Chat.Error.Render(row("rule    "+sanitize.Line(md.notice))) + "\n"
	}
	b.WriteString(notice)
	return notice
}

// argRows writes the box's arguments to b, wrapped lines at most rows of
// them from the scroll on, under their label and over the note on what
// is not shown, and says how many it showed. Compact, the label and the
// note are one row over one row of arguments; in the save step (A),
// where ↑/↓ choose what to save (they do not scroll), none: Esc goes
// back to them.
func (md *modal) argRows(m *Model, b *strings.Builder, wrapped []string, w, rows int, compact bool) int {
	st := m.st.Dialog
	row := boxRow(w, compact)
	if compact && md.save != nil {
		return 0
	}
	md.scroll = min(md.scroll, max(len(wrapped)-rows, 0))
	if compact && md.scroll == 0 && len(wrapped) > 1 && strings.TrimSpace(wrapped[0]) == "{" {
		md.scroll = 1 // one row: a key, not the brace
	}
	end := min(md.scroll+rows, len(wrapped))
	hint := md.argsHint(md.scroll, end, len(wrapped))
	switch {
	case compact && (end-md.scroll < len(wrapped) || hint != ""):
		// The label and the note on one row, over the one row shown.
		b.WriteString(st.Hint.Render(row(fmt.Sprintf("args %d/%d · more hidden: ↑/↓, f", end, len(wrapped)))) + "\n")
		hint = ""
	case compact:
		b.WriteString("arguments\n")
	default:
		b.WriteString("\narguments\n")
	}
	for _, l := range wrapped[md.scroll:end] {
		b.WriteString(ansi.Truncate(l, w-4, "…") + "\n")
	}
	if hint != "" {
		b.WriteString(st.Hint.Render(hint) + "\n")
	}
	return end - md.scroll
}
