package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/session"
	"latch/ui/sanitize"
)

// `A` in the permission box opens a second step in the same box: what can
// be saved for every later call like this one, narrowest first — an
// argument rule derived from the call (its exact values, its folders), or
// the whole tool as it is defined now — each shown exactly as it will be
// written, with the file it goes into. ↑/↓ choose, Enter writes and runs
// the call, Esc goes back; nothing is written before Enter.

// saveStep is A's second step.
type saveStep struct {
	choices []saveChoice // the argument rules, then the whole tool
	at      int          // the chosen one
	saving  bool         // Enter was pressed: the rule is being written
	err     string       // why the last write failed
	noRule  string       // why no argument rule is offered, "" when one is
}

// saveChoice is one thing A can save.
type saveChoice struct {
	spec *permissions.RuleSpec // an allow rule; nil: the whole tool (a saved grant)
	text string                // what is written: the rule in the compact form, or the tool's name
}

// ruleSaver writes an allow rule into the config file (Options.SaveRule).
type ruleSaver = func(spec permissions.RuleSpec) (permissions.Rule, error)

// ruleSavedMsg is what writing a rule chosen in the box did.
type ruleSavedMsg struct {
	callID string
	rule   permissions.Rule
	err    error
}

// openSaveStep shows A's second step in the box md. The box ignores its
// keys again for a moment: an Enter typed right after A is not read as
// the choice of what to save.
func (m *Model) openSaveStep(md *modal) {
	st := &saveStep{}
	switch {
	case m.saveRule == nil:
		st.noRule = "argument rules cannot be saved from here"
	case m.ruleFileErr != nil:
		st.noRule = "argument rules cannot be saved: " + sanitizeText(m.ruleFileErr.Error())
	default:
		for _, spec := range m.perms.RuleChoices(md.card.callID) {
			// Only a rule the screen shows as it is: one with a control
			// character would be shown otherwise than it is written.
			if text := permissions.FormatCompact(spec); sanitize.Line(text) == text {
				st.choices = append(st.choices, saveChoice{spec: &spec, text: text})
			}
		}
		if len(st.choices) == 0 {
			st.noRule = "no argument rule fits this call (its values are not plain enough, or its folder is / or ~)"
		}
	}
	st.choices = append(st.choices, saveChoice{text: md.card.tool})
	md.save = st
	md.box.took = m.now()
	m.modalWake = true
	m.dirty = true
}

// handleSaveKey answers A's second step: ↑/↓ choose, Enter saves the
// choice and runs the call, Esc goes back to the question.
func (m *Model) handleSaveKey(md *modal, msg tea.KeyMsg) tea.Cmd {
	st := md.save
	switch {
	case st.saving:
		return nil
	case msg.Type == tea.KeyEsc:
		md.save = nil
	case msg.Type == tea.KeyUp, isRune(msg, 'k'):
		st.at = max(st.at-1, 0)
	case msg.Type == tea.KeyDown, isRune(msg, 'j'):
		st.at = min(st.at+1, len(st.choices)-1)
	case msg.Type == tea.KeyEnter:
		ch := st.choices[st.at]
		if ch.spec == nil {
			return m.answer(md, session.AnswerSave)
		}
		st.saving, st.err = true, ""
		save, spec, id := m.saveRule, *ch.spec, md.card.callID
		return func() tea.Msg {
			r, err := save(spec)
			return ruleSavedMsg{callID: id, rule: r, err: err}
		}
	}
	return nil
}

// handleRuleSaved applies a rule written from the box: the gate has it at
// once, and the call it came from runs. A write that failed is said in
// the box, which stays on its second step.
func (m *Model) handleRuleSaved(msg ruleSavedMsg) {
	m.dirty = true
	var md *modal
	for _, q := range m.allModals() {
		if q.card.callID == msg.callID {
			md = q
		}
	}
	if msg.err != nil {
		if md != nil && md.save != nil {
			md.save.saving, md.save.err = false, sanitizeText(msg.err.Error())
		} else {
			m.addError("the rule was not saved: " + sanitizeText(msg.err.Error()))
		}
		return
	}
	m.perms.AddSavedRule(msg.rule)
	m.addNotice("saved: " + sanitize.Line(permissions.FormatCompact(msg.rule.Spec)) + " is allowed from now on (" +
		sanitize.Line(msg.rule.Origin) + "; remove it there to undo; /why CALL_ID shows which rule decided a call)")
	if md != nil {
		m.answer(md, session.AnswerYes)
	}
}

// renderSave draws A's second step under the call's arguments, w wide.
func (m *Model) renderSave(md *modal, w int) string {
	st, sty := md.save, m.st.Dialog
	var b strings.Builder
	b.WriteString(sty.Title.Render("Save, for every later call like this one:") + "\n")
	for i, ch := range st.choices {
		mark := "  "
		if i == st.at {
			mark = "› "
		}
		text := "allow " + sanitize.Line(ch.text)
		if ch.spec == nil {
			text = "allow " + sanitize.Line(ch.text) + " with any arguments, as the tool is defined now"
		}
		for j, l := range wrapLine(text, w-8, "") {
			if l = "    " + l; j == 0 {
				l = mark + l[4:]
			}
			if i == st.at {
				l = sty.Title.Render(l)
			}
			b.WriteString(l + "\n")
		}
	}
	if st.noRule != "" {
		b.WriteString(m.wrapHint(st.noRule, w))
	}
	where := "written to permissions.rules in " + sanitize.Line(m.ruleFile)
	if st.choices[st.at].spec == nil {
		where = "saved in " + sanitize.Line(m.perms.SavedGrantsFile())
		if m.perms.SavedGrantsFile() == "" {
			where = "saved grants are off here: allowed for this session only"
		}
	}
	if md.card.rule != "" {
		where += fmt.Sprintf("; this call was asked by rule %s, which still asks", sanitize.Line(md.card.rule))
	}
	b.WriteString(m.wrapHint(where, w))
	if st.err != "" {
		b.WriteString(m.st.Chat.Error.Render("not saved: "+sanitize.Line(st.err)) + "\n")
	}
	keys := "↑/↓ choose · enter save and run it · esc back"
	if st.saving {
		keys = "saving…"
	}
	b.WriteString(sty.Hint.Render(keys))
	return b.String()
}

// wrapHint is text as hint lines, wrapped to fit a box w wide.
func (m *Model) wrapHint(text string, w int) string {
	var b strings.Builder
	for _, l := range wrapLine(text, w-4, "") {
		b.WriteString(m.st.Dialog.Hint.Render(l) + "\n")
	}
	return b.String()
}
