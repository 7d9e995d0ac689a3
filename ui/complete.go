package ui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"latch/permissions"
)

// candidate is one completion: the whole input it would make, and a hint.
type candidate struct{ text, help string }

// serverCommands take a server name as their (first) argument.
var serverCommands = map[string]bool{"connect": true, "close": true, "token": true, "tools": true, "logs": true, "mode": true}

// candidates lists the completions of the input v: command names, then
// their arguments (server names, modes, model and theme names).
func (m *Model) candidates(v string) []candidate {
	if !strings.HasPrefix(v, "/") || strings.Contains(v, "\n") {
		return nil
	}
	cmd, arg, hasArg := strings.Cut(v, " ")
	if !hasArg {
		var out []candidate
		for _, c := range commands {
			if strings.HasPrefix("/"+c.name, v) {
				out = append(out, candidate{"/" + c.name, c.help})
			}
		}
		return out
	}
	name := strings.TrimPrefix(cmd, "/")
	words := strings.Fields(arg)
	if strings.HasSuffix(arg, " ") || len(words) == 0 {
		words = append(words, "")
	}
	pos, prefix := len(words)-1, words[len(words)-1]
	var opts []candidate
	switch {
	case name == "mode" && pos == 0:
		for _, md := range permissions.Modes() {
			opts = append(opts, candidate{md, "mode for every server"})
		}
		for _, n := range m.b.ServerNames() {
			opts = append(opts, candidate{n, "set this server's mode"})
		}
	case name == "mode" && pos == 1:
		for _, md := range permissions.Modes() {
			opts = append(opts, candidate{md, ""})
		}
	case serverCommands[name] && pos == 0:
		for _, n := range m.b.ServerNames() {
			opts = append(opts, candidate{n, m.servers[n].summary})
		}
		if name == "connect" || name == "close" {
			opts = append(opts, candidate{"all", "every server"})
		}
	case name == "model" && pos == 0:
		for _, n := range m.modelNames {
			opts = append(opts, candidate{n, ""})
		}
	case name == "theme" && pos == 0:
		for _, n := range m.themeNames() {
			opts = append(opts, candidate{n, ""})
		}
	case (name == "approve" || name == "reject") && pos == 0:
		for _, ap := range m.b.Approvals() {
			opts = append(opts, candidate{ap.ID, ap.Name})
		}
	case name == "allow" && pos == 0:
		if tools, err := m.b.Tools(""); err == nil {
			for _, t := range tools {
				opts = append(opts, candidate{t.Name, ""})
			}
		}
	}
	base := strings.TrimSuffix(v, prefix)
	var out []candidate
	for _, o := range opts {
		if strings.HasPrefix(o.text, prefix) {
			out = append(out, candidate{base + o.text, o.help})
		}
	}
	return out
}

// popupRows is how many completions the popup shows.
const popupRows = 8

// completionPopup draws the candidates for the input, or "".
func (m *Model) completionPopup() string {
	if m.modal != nil || m.picker != nil || m.token != nil || m.helpOpen {
		return ""
	}
	hits := m.candidates(m.input.value())
	if len(hits) == 0 || (len(hits) == 1 && strings.TrimSpace(hits[0].text) == strings.TrimSpace(m.input.value())) {
		return ""
	}
	st := m.st.Dialog
	var lines []string
	w := 0
	for i, h := range hits {
		if i < popupRows {
			w = max(w, ansi.StringWidth(h.text))
		}
	}
	for i, h := range hits {
		if i == popupRows {
			lines = append(lines, st.Hint.Render("… "+strconv.Itoa(len(hits)-popupRows)+" more"))
			break
		}
		line := st.Item.Render(h.text)
		if h.help != "" {
			pad := strings.Repeat(" ", w-ansi.StringWidth(h.text))
			line += st.Hint.Render(pad + "  " + h.help)
		}
		lines = append(lines, line)
	}
	lines = append(lines, st.Hint.Render("tab completes"))
	// The box sits one column in and must end on screen.
	fit := max(m.width-1-st.Box.GetHorizontalFrameSize(), 1)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, fit, "…")
	}
	return st.Box.Render(strings.Join(lines, "\n"))
}
