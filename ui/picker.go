package ui

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// picker is the model chooser shown over the chat: ↑/↓ move, type to
// filter, Enter picks, Ctrl+S picks and keeps it as the default (written
// to the config file), Esc closes.
type picker struct {
	models []session.ModelInfo
	filter string
	cursor int
	dirty  bool
}

func newPicker(ms []session.ModelInfo, current string) *picker {
	p := &picker{models: ms, dirty: true}
	for i, x := range ms {
		if x.Name == current {
			p.cursor = i
		}
	}
	return p
}

func (p *picker) visible() []session.ModelInfo {
	if p.filter == "" {
		return p.models
	}
	var out []session.ModelInfo
	for _, x := range p.models {
		if strings.Contains(strings.ToLower(x.Name), strings.ToLower(p.filter)) {
			out = append(out, x)
		}
	}
	return out
}

func (m *Model) handlePickerKey(msg tea.KeyMsg) tea.Cmd {
	p := m.picker
	p.dirty = true
	m.dirty = true
	vis := p.visible()
	switch {
	case matches(msg, m.keys.Cancel):
		m.picker = nil
		if m.models.Model() == "" {
			m.addNotice("no model chosen: /model NAME or /model to pick one")
		}
	case msg.Type == tea.KeyUp:
		p.cursor = max(p.cursor-1, 0)
	case msg.Type == tea.KeyDown:
		p.cursor = min(p.cursor+1, max(len(vis)-1, 0))
	case msg.Type == tea.KeyEnter:
		if p.cursor < len(vis) {
			m.picker = nil
			return m.setModel(vis[p.cursor].Name)
		}
	case msg.Type == tea.KeyCtrlS:
		if p.cursor < len(vis) {
			m.picker = nil
			return m.setAndKeepModel(vis[p.cursor].Name)
		}
	case msg.Type == tea.KeyBackspace:
		if p.filter != "" {
			p.filter = p.filter[:len(p.filter)-1]
			p.cursor = 0
		}
	case msg.Type == tea.KeyRunes && !msg.Paste:
		p.filter += string(msg.Runes)
		p.cursor = 0
	}
	return nil
}

// render draws the picker box, at most width × height.
func (p *picker) render(st *themes.Styles, width, height int) string {
	p.dirty = false
	vis := p.visible()
	var b strings.Builder
	b.WriteString(st.Dialog.Title.Render("Choose a model"))
	if p.filter != "" {
		b.WriteString(st.Dialog.Hint.Render("  filter: " + sanitize.Line(p.filter)))
	}
	b.WriteByte('\n')
	rows := max(height-7, 1)
	start := 0
	if p.cursor >= rows {
		start = p.cursor - rows + 1
	}
	for i := start; i < len(vis) && i < start+rows; i++ {
		x := vis[i]
		line := fmt.Sprintf("%-28s %8s %6s%s", sanitize.Line(x.Name), humanSize(x.Size), x.ParameterSize, capsNote(x))
		line = ansi.Truncate(line, max(width-8, 10), "…")
		if i == p.cursor {
			b.WriteString(st.Dialog.Selected.Render("› " + line))
		} else {
			b.WriteString(st.Dialog.Item.Render("  " + line))
		}
		b.WriteByte('\n')
	}
	if len(vis) == 0 {
		b.WriteString(st.Dialog.Hint.Render("  no model matches") + "\n")
	}
	b.WriteString(st.Dialog.Hint.Render("↑/↓ move · type to filter · enter choose · esc close") + "\n")
	b.WriteString(st.Dialog.Hint.Render("ctrl+s choose and keep as the default (in the config file)"))
	return st.Dialog.Box.Render(b.String())
}

// overlay draws box centred over bg (both multi-line strings), keeping the
// background visible around it.
func overlay(bg, box string, width int) string {
	rows := strings.Count(bg, "\n") + 1
	x := max((width-lipgloss.Width(box))/2, 0)
	y := max((rows-lipgloss.Height(box))/2, 0)
	return overlayAt(bg, box, x, y)
}

// overlayAt draws box over bg with its top-left corner at column x, row y.
// lipgloss v1 has no layers, so the lines are spliced with ANSI-aware
// truncation.
func overlayAt(bg, box string, x, y int) string {
	bgLines := strings.Split(bg, "\n")
	fg := strings.Split(box, "\n")
	for i, l := range fg {
		row := y + i
		if row >= len(bgLines) {
			break
		}
		under := bgLines[row]
		left := ansi.Truncate(under, x, "")
		if pad := x - ansi.StringWidth(left); pad > 0 {
			left += strings.Repeat(" ", pad)
		}
		right := ansi.TruncateLeft(under, x+ansi.StringWidth(l), "")
		bgLines[row] = left + l + right
	}
	return strings.Join(bgLines, "\n")
}
