package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"latch/ui/sanitize"
)

// copyItem is one thing copy mode can copy: a message, a reply, one code
// block of a reply, a tool's result.
type copyItem struct {
	entry int    // its entry in the chat
	label string // what it is, as the list shows it
	text  string // what is copied (the clipboard door cleans it)
}

// copyMode is the list of what can be copied, over the chat: ↑/↓ (k/j)
// choose, Enter or y copies, Esc leaves.
type copyMode struct {
	items []copyItem
	sel   int
}

// copyItems lists what the chat holds that can be copied, oldest first:
// each message and reply, then the reply's code blocks one by one (the
// code only), and each tool result (its preview, as the card has it).
func (m *Model) copyItems() []copyItem {
	var out []copyItem
	for i, e := range m.chat.entries {
		switch {
		case e.kind == userEntry && strings.TrimSpace(e.text) != "":
			out = append(out, copyItem{entry: i, label: "your message", text: e.text})
		case e.kind == assistantEntry && e.done && strings.TrimSpace(e.text) != "":
			out = append(out, copyItem{entry: i, label: "reply", text: e.text})
			for _, cb := range codeBlocks(e.text) {
				label := "code block"
				if cb.lang != "" {
					label = cb.lang + " " + label
				}
				out = append(out, copyItem{entry: i, label: label, text: cb.code})
			}
		case e.kind == toolEntry && e.card != nil && e.card.state == cardDone && e.card.preview != "":
			out = append(out, copyItem{entry: i, label: "result of " + e.card.tool, text: e.card.preview})
		}
	}
	return out
}

// codeBlock is a fenced or indented code block of a reply.
type codeBlock struct{ lang, code string }

// codeBlocks are the code blocks of markdown src, as the reply's renderer
// reads them: the code without its fences or language line.
func codeBlocks(src string) []codeBlock {
	b := []byte(src)
	doc := goldmark.New().Parser().Parse(text.NewReader(b))
	var out []codeBlock
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		var lang string
		switch n := n.(type) {
		case *ast.FencedCodeBlock:
			lang = string(n.Language(b))
		case *ast.CodeBlock:
		default:
			return ast.WalkContinue, nil
		}
		var code strings.Builder
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			code.Write(seg.Value(b))
		}
		out = append(out, codeBlock{lang: lang, code: strings.TrimSuffix(code.String(), "\n")})
		return ast.WalkSkipChildren, nil
	})
	return out
}

// openCopyMode lists what can be copied, the newest chosen.
func (m *Model) openCopyMode() {
	items := m.copyItems()
	if len(items) == 0 {
		m.addNotice("nothing to copy yet")
		return
	}
	m.copying = &copyMode{items: items, sel: len(items) - 1}
	m.chat.showEntry(items[len(items)-1].entry)
	m.dirty = true
}

// handleCopyKey moves through the list, copies the chosen item, or leaves.
func (m *Model) handleCopyKey(msg tea.KeyMsg) tea.Cmd {
	c := m.copying
	m.dirty = true
	switch {
	case msg.Type == tea.KeyEsc || isRune(msg, 'q'):
		m.copying = nil
		return nil
	case msg.Type == tea.KeyUp || isRune(msg, 'k'):
		c.sel = max(c.sel-1, 0)
	case msg.Type == tea.KeyDown || isRune(msg, 'j'):
		c.sel = min(c.sel+1, len(c.items)-1)
	case msg.Type == tea.KeyHome:
		c.sel = 0
	case msg.Type == tea.KeyEnd:
		c.sel = len(c.items) - 1
	case msg.Type == tea.KeyEnter || isRune(msg, 'y'):
		m.copying = nil
		return m.copyText(c.items[c.sel].label, c.items[c.sel].text)
	default:
		return nil
	}
	m.chat.showEntry(c.items[c.sel].entry)
	return nil
}

// copyText puts text on the clipboard through the one door (m.clipboard)
// and says what was copied.
func (m *Model) copyText(what, text string) tea.Cmd {
	clip := m.clipboard
	text = sanitize.Clipboard(text)
	lines := strings.Count(text, "\n") + 1
	return func() tea.Msg {
		return copiedMsg{what: what, lines: lines, report: clip(text)}
	}
}

// copiedNotice says what a copy put on the clipboard: copied, when a
// clipboard command took it; else that it went through the terminal and
// may not have arrived, and what to do about it (copyReport).
func copiedNotice(msg copiedMsg) string {
	var what string
	switch {
	case msg.label != "":
		what = sanitize.Line(msg.label)
	case msg.what == "":
		what = fmt.Sprintf("the last answer (%d characters)", msg.n)
	case msg.lines == 1:
		what = fmt.Sprintf("1 line (%s)", sanitize.Line(msg.what))
	default:
		what = fmt.Sprintf("%d lines (%s)", msg.lines, sanitize.Line(msg.what))
	}
	if msg.report.sure {
		return "copied " + what + " to the clipboard"
	}
	return "sent " + what + " to the terminal (OSC 52); it may not reach the clipboard: " + msg.report.hint
}

// copyBox is copy mode's list, drawn at the bottom of the chat.
func (m *Model) copyBox() string {
	st, c := m.st.Dialog, m.copying
	w := min(m.width-4, 100)
	rows := max(min(m.chat.height-5, 8), 1)
	start := max(min(c.sel-rows/2, len(c.items)-rows), 0)
	var b strings.Builder
	b.WriteString(st.Title.Render("Copy") + "\n")
	for i := start; i < len(c.items) && i < start+rows; i++ {
		it := c.items[i]
		first, _, _ := strings.Cut(strings.TrimSpace(it.text), "\n")
		line := fmt.Sprintf("%-20s %s", sanitize.Line(it.label), sanitize.Line(first))
		line = ansi.Truncate(line, max(w-6, 10), "…")
		if i == c.sel {
			b.WriteString(st.Selected.Render("› "+line) + "\n")
		} else {
			b.WriteString(st.Item.Render("  "+line) + "\n")
		}
	}
	b.WriteString(st.Hint.Render("↑/↓ choose · enter or y copies · esc leaves"))
	return st.Box.Width(w).Render(b.String())
}

// toggleMouse takes the mouse (the wheel scrolls the chat) or lets it go
// (a drag selects text), and says which.
func (m *Model) toggleMouse() tea.Cmd {
	m.mouse = !m.mouse
	m.keys.setMouse(m.mouse)
	m.dirty = true
	if m.mouse {
		m.addNotice("mouse on: the wheel scrolls the chat · shift+drag selects in most terminals · f2 lets go")
		return tea.EnableMouseCellMotion
	}
	m.addNotice("mouse off: drag to select text · ctrl+g copies a message or code block · f2 takes the mouse")
	return tea.DisableMouse
}

// selectHint says on the hint line how to select text.
func (m *Model) selectHint() string {
	if m.mouse {
		return "f2 frees the mouse to select"
	}
	return "drag selects · ctrl+g copies"
}
