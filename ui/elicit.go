package ui

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// formModal is a server's request for input over the chat: a form built
// from its schema, or a URL to open (ev.Mode). Requests queue: the first
// is shown, once no permission question is open.
type formModal struct {
	ev     *session.ElicitationEvent // display-safe
	box    boxFocus                  // whether it has the keys (boxfocus.go)
	focus  int                       // the field with the cursor
	vals   []fieldValue              // by field
	errs   map[string]string         // problems by field name, after a refused submit
	note   string                    // a problem of the whole request (a failed open)
	scroll int                       // first row of the fields shown
}

// fieldValue is what the person has made of one field.
type fieldValue struct {
	text   string // string, number, integer
	on     bool   // boolean
	pick   int    // select: the option chosen, -1 for none
	picked []bool // multiselect: the options ticked
	cursor int    // multiselect: the option under the cursor
}

// newFormModal opens a request with its defaults filled in (SEP-1034).
func newFormModal(ev *session.ElicitationEvent) *formModal {
	fm := &formModal{ev: ev, vals: make([]fieldValue, len(ev.Fields))}
	for i, f := range ev.Fields {
		v := fieldValue{text: f.Default, on: f.Default == "true", pick: -1, picked: make([]bool, len(f.Options))}
		for j, o := range f.Options {
			if f.Kind == session.FieldSelect && f.HasDefault && o.Value == f.Default {
				v.pick = j
			}
			for _, d := range f.Defaults {
				v.picked[j] = v.picked[j] || d == o.Value
			}
		}
		if f.Kind != session.FieldString && f.Kind != session.FieldNumber && f.Kind != session.FieldInteger && f.Kind != "" {
			v.text = ""
		}
		fm.vals[i] = v
	}
	return fm
}

// url reports whether the request is a URL to open (a request of no
// known mode with a URL and no fields is shown as one too).
func (fm *formModal) url() bool {
	return fm.ev.Mode == session.ElicitURL || fm.ev.Mode != session.ElicitForm && fm.ev.URL != "" && len(fm.ev.Fields) == 0
}

// handleElicitEvent opens a request, or closes the one that was answered
// (by the person, or because the server's request ended: then it says so).
// A request replayed from a resumed session's log is history: only its
// answer is shown.
func (m *Model) handleElicitEvent(e session.Event) {
	switch e := e.(type) {
	case *session.ElicitationEvent:
		if !m.replaying {
			m.forms = append(m.forms, newFormModal(e))
		}
	case *session.ElicitationAnswerEvent:
		for i, fm := range m.forms {
			if fm.ev.ID == e.ID {
				m.forms = append(m.forms[:i:i], m.forms[i+1:]...)
				break
			}
		}
		m.addNotice(answerLine(e))
	}
	m.dirty = true
}

// answerLine is the chat's line for an answered request.
func answerLine(e *session.ElicitationAnswerEvent) string {
	what := "a form"
	if e.Mode == session.ElicitURL {
		what = "a link to open"
	}
	srv := sanitize.Line(e.Server)
	switch {
	case e.By == "server":
		return fmt.Sprintf("%s withdrew its request for %s: %s", srv, what, sanitize.Line(e.Reason))
	case e.By == "policy":
		return fmt.Sprintf("%s asked for %s: declined: %s", srv, what, sanitize.Line(e.Reason))
	case e.Action == session.ElicitAccept && e.Mode == session.ElicitURL:
		return fmt.Sprintf("%s's link: you opened or copied it", srv)
	case e.Action == session.ElicitAccept:
		return fmt.Sprintf("%s's form: sent %s", srv, contentLine(e.Content))
	case e.Action == session.ElicitDecline:
		return fmt.Sprintf("%s asked for %s: you declined", srv, what)
	}
	return fmt.Sprintf("%s asked for %s: you cancelled", srv, what)
}

// contentLine lists a form's sent values, by field name.
func contentLine(c map[string]any) string {
	if len(c) == 0 {
		return "no values"
	}
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", sanitize.Line(k), c[k])
	}
	return sanitize.Line(strings.Join(parts, ", "))
}

// handleFormKey handles a key for the request in front, once it has the
// keys: nothing until its guard is over; then a URL request's keys, or
// the form's.
func (m *Model) handleFormKey(msg tea.KeyMsg) tea.Cmd {
	fm := m.forms[0]
	m.dirty = true
	if m.boxGuarded(&fm.box) {
		return nil
	}
	if fm.url() {
		return m.handleURLKey(fm, msg)
	}
	switch {
	case msg.Type == tea.KeyEsc:
		m.answerForm(fm, session.ElicitCancel, nil)
	case msg.Type == tea.KeyCtrlD:
		m.answerForm(fm, session.ElicitDecline, nil)
	case msg.Type == tea.KeyCtrlS, msg.Type == tea.KeyEnter && fm.focus == len(fm.ev.Fields)-1:
		m.submitForm(fm)
	case msg.Type == tea.KeyEnter, msg.Type == tea.KeyTab, msg.Type == tea.KeyDown:
		fm.focus = min(fm.focus+1, max(len(fm.ev.Fields)-1, 0))
	case msg.Type == tea.KeyShiftTab, msg.Type == tea.KeyUp:
		fm.focus = max(fm.focus-1, 0)
	default:
		fm.editField(msg)
		fm.recheck()
	}
	return nil
}

// editField gives a key to the focused field: text into a text field,
// space to a toggle, left and right to a choice.
func (fm *formModal) editField(msg tea.KeyMsg) {
	if len(fm.ev.Fields) == 0 {
		return
	}
	f, v := fm.ev.Fields[fm.focus], &fm.vals[fm.focus]
	space := msg.Type == tea.KeySpace || isRune(msg, ' ')
	switch f.Kind {
	case session.FieldBoolean:
		if space {
			v.on = !v.on
		}
	case session.FieldSelect:
		v.pick = stepPick(v.pick, len(f.Options), msg.Type, f.Required)
	case session.FieldMulti:
		switch {
		case space && len(v.picked) > 0:
			v.picked[v.cursor] = !v.picked[v.cursor]
		case msg.Type == tea.KeyLeft:
			v.cursor = max(v.cursor-1, 0)
		case msg.Type == tea.KeyRight:
			v.cursor = min(v.cursor+1, max(len(v.picked)-1, 0))
		}
	default:
		v.text = editText(v.text, msg)
	}
}

// stepPick moves a single choice left or right; an optional field can go
// back to none (-1).
func stepPick(pick, n int, k tea.KeyType, required bool) int {
	low := -1
	if required {
		low = 0
	}
	switch k {
	case tea.KeyLeft:
		return max(pick-1, low)
	case tea.KeyRight:
		return min(max(pick+1, low), n-1)
	}
	return pick
}

// editText edits a text field: typed or pasted text is added (control
// characters dropped, line breaks made spaces), backspace takes the last
// character back, ctrl+u empties it.
func editText(text string, msg tea.KeyMsg) string {
	switch msg.Type {
	case tea.KeyBackspace:
		r := []rune(text)
		return string(r[:max(len(r)-1, 0)])
	case tea.KeyCtrlU:
		return ""
	case tea.KeySpace:
		return text + " "
	case tea.KeyRunes:
		var b strings.Builder
		for _, r := range msg.Runes {
			switch {
			case r == '\n' || r == '\r' || r == '\t':
				b.WriteRune(' ')
			case unicode.IsControl(r) || sanitize.Line(string(r)) != string(r):
			default:
				b.WriteRune(r)
			}
		}
		return text + b.String()
	}
	return text
}

// content is what the form sends, and what is wrong with it, by field.
func (fm *formModal) content() (map[string]any, map[string]string) {
	out := map[string]any{}
	bad := map[string]string{}
	for i, f := range fm.ev.Fields {
		v := fm.vals[i]
		switch f.Kind {
		case session.FieldBoolean:
			out[f.Name] = v.on
		case session.FieldSelect:
			if v.pick >= 0 {
				out[f.Name] = f.Options[v.pick].Value
			}
		case session.FieldMulti:
			var picked []string
			for j, on := range v.picked {
				if on {
					picked = append(picked, f.Options[j].Value)
				}
			}
			if len(picked) > 0 || f.Required {
				out[f.Name] = picked
			}
		default:
			if strings.TrimSpace(v.text) == "" {
				continue
			}
			val, problem := f.Parse(v.text)
			if problem != "" {
				bad[f.Name] = problem
				continue
			}
			out[f.Name] = val
		}
	}
	for k, p := range session.CheckForm(fm.ev.Fields, out) {
		if _, ok := bad[k]; !ok {
			bad[k] = p
		}
	}
	return out, bad
}

// recheck keeps the problems shown up to date once a submit was refused.
func (fm *formModal) recheck() {
	if fm.errs != nil {
		_, fm.errs = fm.content()
	}
}

// submitForm sends the form when nothing is wrong with it; else it shows
// what is, next to each field, and moves to the first such field.
func (m *Model) submitForm(fm *formModal) {
	content, bad := fm.content()
	if len(bad) == 0 {
		m.answerForm(fm, session.ElicitAccept, content)
		return
	}
	fm.errs = bad
	for i, f := range fm.ev.Fields {
		if _, ok := bad[f.Name]; ok {
			fm.focus = i
			break
		}
	}
}

// answerForm answers the request and closes it; a form the session finds
// wrong stays open with the session's problems shown.
func (m *Model) answerForm(fm *formModal, action string, content map[string]any) {
	err := m.elicit.AnswerElicitation(fm.ev.ID, action, content)
	var fe *session.FormError
	switch {
	case errors.As(err, &fe):
		fm.errs = map[string]string{}
		for k, p := range fe.Problems {
			fm.errs[k] = sanitize.Line(p)
		}
		return
	case err != nil:
		m.addError(sanitize.Line(err.Error()))
	}
	m.dropForm(fm)
}

// dropForm closes a request on screen.
func (m *Model) dropForm(fm *formModal) {
	for i, x := range m.forms {
		if x == fm {
			m.forms = append(m.forms[:i:i], m.forms[i+1:]...)
			break
		}
	}
	m.dirty = true
}
