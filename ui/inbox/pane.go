package inbox

import (
	"fmt"
	"strings"
	"time"

	"latch/ui/sanitize"
)

// pane draws, in w×h, the confirmation step when one is open, else the
// selected call whole.
func (m *Model) pane(w, h int) []string {
	if m.step != nil {
		return m.stepLines(w, h) // only what is decided: no other call beside it
	}
	c, _, ok := m.selected()
	if !ok {
		return nil
	}
	var out []string
	// Between words: an id, a session or a rule's name is not cut in two
	// (one longer than the pane still is).
	add := func(label, text string) {
		for i, l := range wrapWords(label+sanitize.Line(text), max(w-2, 1)) {
			if i > 0 {
				l = "  " + l
			}
			out = append(out, m.st.Dialog.Item.Render(l))
		}
	}
	now := m.o.Now()
	add("id       ", c.CallID+"  (session "+c.Session+")")
	add("client   ", clientName(c))
	tool := c.Tool
	if c.Server != "" {
		tool += "  (server " + c.Server + ")"
	}
	add("tool     ", tool)
	add("parked   ", age(now.Sub(c.Parked))+" ago by "+parkedBy(c))
	switch {
	case c.Chat():
		add("decide   ", "in that chat (/approve "+c.ApprovalID+"), or latch --resume "+c.Session+" --approve "+c.ApprovalID)
	case c.Stopped:
		add("gateway  ", "not running: start it again to decide this call")
	default:
		add("expires  ", expiry(c, now)+" ("+c.Expires.Local().Format(time.DateTime)+")")
	}
	body, elided := m.argBody(c, w)
	head := fmt.Sprintf("arguments  %d %s", len(c.Arguments), plural(len(c.Arguments), "key", "keys"))
	if elided > 0 {
		head += fmt.Sprintf(", %d elided in the middle (f shows every value whole)", elided)
	}
	out = append(out, wrapStyled(m, head, w)...)
	room := max(h-len(out), 2)
	return append(out, m.scrolled(body, room, w)...)
}

// argBody is the selected call's arguments laid out and wrapped to w,
// kept while the call, f and the width stay the same: a call whose
// arguments are megabytes long is laid out once, not at every frame.
func (m *Model) argBody(c Call, w int) ([]string, int) {
	k := argsKey{call: key(c), full: m.full, w: w}
	if m.body.key == k && m.body.lines != nil {
		return m.body.lines, m.body.elided
	}
	lines, elided := m.args(c)
	body := []string{}
	for _, l := range lines {
		for i, p := range wrap(l, w-2) {
			if i > 0 {
				p = "↪" + p
			} else {
				p = " " + p
			}
			body = append(body, " "+p)
		}
	}
	m.body = argsBody{key: k, lines: body, elided: elided}
	return body, elided
}

// argsKey names one layout of a call's arguments.
type argsKey struct {
	call string
	full bool
	w    int
}

// argsBody is the layout argBody keeps.
type argsBody struct {
	key    argsKey
	lines  []string
	elided int
}

// scrolled is the part of body from the scroll line that fits in room
// rows; when not all of it fits, the last row says which lines are shown
// and of how many.
func (m *Model) scrolled(body []string, room, w int) []string {
	if len(body) <= room {
		m.scroll = 0
		return body
	}
	show := room - 1
	m.scroll = min(m.scroll, len(body)-show)
	end := m.scroll + show
	out := append([]string{}, body[m.scroll:end]...)
	say := fmt.Sprintf("lines %d-%d of %d · pgup/pgdn scroll", m.scroll+1, end, len(body))
	return append(out, m.st.Dialog.Hint.Render(fit(say, w)))
}

// args lays out a call's arguments, every key one a line.
func (m *Model) args(c Call) ([]string, int) {
	if m.o.Args == nil {
		return []string{fmt.Sprintf("(%d keys)", len(c.Arguments))}, 0
	}
	return m.o.Args(c.ParkedCall, m.full)
}

// argRows is how many rows of arguments the pane shows, for a page.
func (m *Model) argRows() int { return max(m.h/2-8, 1) }

// stepLines draw the confirmation step: what is decided, on which calls
// and how many, then the keys, or that keys are ignored for a moment.
func (m *Model) stepLines(w, h int) []string {
	s := m.step
	if s.rule != "" {
		out := wrapTitle(m, "Save this rule in latch's config, so calls like this stop parking?", w)
		out = append(out, wrapStyled(m, "  "+s.rule, w)...)
		keys := "enter saves it · esc cancels"
		if s.guarded(m.o.Now(), m.prevKey) {
			keys = "(keys ignored for a moment) · esc cancels"
		}
		return append(out, m.st.Dialog.Hint.Render(fit(keys, w)))
	}
	n := len(s.calls)
	verb := "Approve"
	if !s.approve {
		verb = "Reject"
	}
	out := wrapTitle(m, fmt.Sprintf("%s %d %s?", verb, n, plural(n, "call", "calls")), w)
	room := max(h-5, 1)
	for i, c := range s.calls {
		if i == room-1 && n > room {
			out = append(out, m.st.Dialog.Item.Render(fit(fmt.Sprintf("  … and %d more", n-i), w)))
			break
		}
		out = append(out, m.st.Dialog.Item.Render(fit("  "+sanitize.Line(c.CallID)+"  "+sanitize.Line(c.Tool)+" of "+clientName(c), w)))
	}
	if !s.approve {
		out = append(out, wrapStyled(m, "reason (for the client): "+sanitize.Line(string(s.reason))+"█", w)...)
	}
	keys := fmt.Sprintf("enter %s %s · esc cancels", strings.ToLower(verb)+"s", plural(n, "it", "all "+fmt.Sprint(n)))
	if s.guarded(m.o.Now(), m.prevKey) {
		keys = "(keys ignored for a moment) · esc cancels"
	}
	return append(out, m.st.Dialog.Hint.Render(fit(keys, w)))
}

// wrapStyled is text wrapped to w, each line drawn as an item.
func wrapStyled(m *Model, text string, w int) []string {
	var out []string
	for _, l := range wrapWords(text, w) {
		out = append(out, m.st.Dialog.Item.Render(l))
	}
	return out
}

// wrapTitle is text wrapped to w, each line drawn as a title.
func wrapTitle(m *Model, text string, w int) []string {
	var out []string
	for _, l := range wrapWords(text, w) {
		out = append(out, m.st.Dialog.Title.Render(l))
	}
	return out
}
