package ui

import (
	"fmt"
	"sort"
	"strings"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// promptCardLines draws a prompt the person ran, before the reply: which
// server and prompt (and its title), the arguments given, then each
// message as it went into the conversation (the first lines of each; all
// of them when cards are expanded). The event is display-safe already
// (it came through session.Display).
func promptCardLines(e *session.PromptEvent, st *themes.Styles, width int, expand bool) []string {
	head := fmt.Sprintf("✦ prompt /%s:%s", sanitize.Line(e.Server), sanitize.Line(e.Prompt))
	if t := sanitize.Line(e.Title); t != "" && t != e.Prompt {
		head += " · " + t
	}
	head += fmt.Sprintf(" — %d %s from %s", len(e.Messages), plural(len(e.Messages), "message", "messages"), sanitize.Line(e.Server))
	out := &cardLines{lines: []string{""}, inner: width - 4}
	for _, l := range plainLines(head, width) {
		out.lines = append(out.lines, st.Chat.Notice.Render(l))
	}
	if d := strings.Join(strings.Fields(sanitize.Line(e.Description)), " "); d != "" {
		out.add(d, st.Chat.Footer.Render)
	}
	names := make([]string, 0, len(e.Arguments))
	for k := range e.Arguments {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		out.add(sanitize.Line(k)+" = "+sanitize.Line(e.Arguments[k]), st.Chat.Notice.Render)
	}
	limit := cardPreviewLines
	if expand {
		limit = cardExpandedLines
	}
	for _, msg := range e.Messages {
		lines := strings.Split(sanitizeText(strings.TrimRight(msg.Text, "\n")), "\n")
		more := ""
		if len(lines) > limit {
			more = fmt.Sprintf("… %d more lines (ctrl+o)", len(lines)-limit)
			lines = lines[:limit]
		}
		out.add(sanitize.Line(msg.Role)+" › "+strings.Join(lines, "\n"), st.Chat.Assistant.Render)
		if more != "" {
			out.add(more, st.Chat.Footer.Render)
		}
	}
	return out.lines
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
