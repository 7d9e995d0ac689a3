package ui

import (
	"fmt"
	"strings"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// sanitizeText is the one door external text passes before it is drawn:
// control sequences are neutralised, and tabs expanded, since a tab moves
// the cursor without painting the cells it skips.
func sanitizeText(s string) string {
	return strings.ReplaceAll(sanitize.Text(s), "\t", "    ")
}

type entryKind int

const (
	userEntry entryKind = iota
	assistantEntry
	noticeEntry
	errorEntry
	toolEntry
	promptEntry // a prompt the person ran (promptcard.go)
)

// entry is one block of the chat: a user message, a reply, a notice or an
// error. Its lines are laid out for one width and cached; a finished entry
// costs nothing to draw again.
type entry struct {
	kind     entryKind
	turn     int
	text     string // the source text (markdown for replies), unsanitized
	thinking string
	footer   string // "cancelled", metrics, ...
	partial  bool
	done     bool // a reply that has finished streaming

	round     int                  // the model's reply within the turn (tool rounds)
	thinkOpen bool                 // ctrl+t: this finished reply shows its whole thinking
	card      *card                // a tool call
	prompt    *session.PromptEvent // a prompt run, display-safe

	stream *mdStream // the reply's markdown, while it streams
	think  *mdStream // the thinking trace, while it streams
	held   heldCall  // a tool call being written as text, kept off the stream (streamcall.go)

	width int      // the width lines were laid out for
	lines []string // cached layout of a finished entry
	gen   int      // counts layouts made, for the chat's layout cache
}

// viewOpts are the user's view toggles that change how entries are laid out.
type viewOpts struct {
	expandCards bool // ctrl+o: tool cards show their whole result preview
}

// segments returns the entry's lines at width as read-only slices.
func (e *entry) segments(st *themes.Styles, r *mdRenderer, width int, o *viewOpts) [][]string {
	if e.kind == assistantEntry && !e.done {
		return e.streamSegments(r, width)
	}
	if e.stale(width) {
		e.lines = e.layout(st, r, width, o)
		e.width = width
		e.gen++
	}
	return [][]string{e.lines}
}

// stale reports whether segments will lay the entry out at width, rather
// than return its cached lines.
func (e *entry) stale(width int) bool {
	if e.kind == assistantEntry && !e.done {
		return false // a streaming reply has caches of its own
	}
	return e.lines == nil || e.width != width
}

// invalidate drops the cached layout (after the entry changed).
func (e *entry) invalidate() { e.lines = nil }

func (e *entry) layout(st *themes.Styles, r *mdRenderer, width int, o *viewOpts) []string {
	lines := []string{""} // the gap above every entry
	switch e.kind {
	case userEntry:
		mark := st.Chat.UserMark.Render("›")
		for i, l := range plainLines(sanitizeText(e.text), width) {
			l = strings.TrimPrefix(l, margin)
			if i == 0 {
				lines = append(lines, mark+" "+st.Chat.User.Render(l))
			} else {
				lines = append(lines, "  "+st.Chat.User.Render(l))
			}
		}
	case assistantEntry:
		if e.thinkOpen {
			lines = append(lines, e.thinkingLines(st, width)...)
		} else if t := strings.TrimSpace(e.thinking); t != "" {
			n := len(strings.Fields(t))
			lines = append(lines, margin+st.Chat.Thinking.Render(fmt.Sprintf("┊ thought for %d %s · ctrl+t shows", n, plural(n, "word", "words"))), "")
		}
		if strings.TrimSpace(e.text) != "" {
			lines = append(lines, r.render(sanitizeText(e.text), width)...)
		}
		if e.footer != "" {
			lines = append(lines, margin+st.Chat.Footer.Render(sanitize.Line(e.footer)))
		}
	case noticeEntry:
		for _, l := range plainLines(sanitizeText(e.text), width) {
			lines = append(lines, st.Chat.Notice.Render(l))
		}
	case toolEntry:
		return e.card.layout(st, width, o.expandCards)
	case promptEntry:
		return promptCardLines(e.prompt, st, width, o.expandCards)
	case errorEntry:
		for i, l := range plainLines(sanitizeText(e.text), width-2) {
			l = strings.TrimPrefix(l, margin)
			if i == 0 {
				lines = append(lines, st.Chat.Error.Render("✗ "+l))
			} else {
				lines = append(lines, st.Chat.Error.Render("  "+l))
			}
		}
	}
	return lines
}

func (e *entry) thinkingLines(st *themes.Styles, width int) []string {
	t := strings.TrimSpace(e.thinking)
	if t == "" {
		return nil
	}
	var out []string
	w := width - len(margin) - 2
	for _, src := range strings.Split(sanitizeText(t), "\n") {
		for _, l := range wrapLine(src, max(w, 10), "") {
			out = append(out, margin+st.Chat.Thinking.Render("┊ "+l))
		}
	}
	return append(out, "")
}

// streamSegments lays out a reply that is still arriving: the gap, the
// thinking so far, then the markdown stream.
func (e *entry) streamSegments(r *mdRenderer, width int) [][]string {
	for _, s := range []*mdStream{e.think, e.stream} {
		if s != nil && s.width != width {
			s.relayout(r, width)
		}
	}
	segs := [][]string{blankLine}
	if e.think != nil {
		segs = append(segs, e.think.segments()...)
		segs = append(segs, blankLine)
	}
	if e.stream != nil {
		segs = append(segs, e.stream.segments()...)
	}
	return segs
}

// addContent appends a content delta to a streaming reply.
func (e *entry) addContent(r *mdRenderer, delta string, width int) {
	if e.stream == nil {
		e.stream = &mdStream{width: width}
	}
	if shown := e.held.pass(delta); shown != "" {
		e.stream.append(r, shown)
	}
}

// addThinking appends a thinking delta to a streaming reply.
func (e *entry) addThinking(st *themes.Styles, r *mdRenderer, delta string, width int) {
	if e.think == nil {
		e.think = &mdStream{width: width, plain: true, indent: "┊ ", style: st.Chat.Thinking.Render}
	}
	e.think.append(r, delta)
}

// finish ends streaming: the whole reply is rendered once more as one
// document, so markdown that spans blocks (lists, tables) comes out right.
func (e *entry) finish(content, thinking string, partial bool) {
	e.text = content
	e.thinking = thinking
	e.partial = partial
	e.done = true
	e.stream, e.think = nil, nil
	e.lines = nil
}
