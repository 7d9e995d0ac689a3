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
// compact, with no blank row, the server and tool on one row and each of
// the others cut to one. It returns the notice's rows, as written.
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
