package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// keyMap holds every key binding of the chat screen.
type keyMap struct {
	Send     key.Binding
	Newline  key.Binding
	Cancel   key.Binding
	Quit     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	LineUp   key.Binding
	LineDown key.Binding
	Bottom   key.Binding
	Complete key.Binding
	Thinking key.Binding
	Expand   key.Binding
	Copy     key.Binding
	CopyMode key.Binding
	Mouse    key.Binding
	Help     key.Binding
	// Interrupt, EOF, HistoryUp, HistoryDown and Search are for the full
	// help (Interrupt is Quit's key, told in full) and the chat's keys.
	Interrupt   key.Binding
	EOF         key.Binding
	HistoryUp   key.Binding
	HistoryDown key.Binding
	Search      key.Binding
}

func defaultKeys() keyMap {
	return keyMap{
		Send:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		Newline:  key.NewBinding(key.WithKeys("alt+enter", "ctrl+j"), key.WithHelp("shift+enter", "newline (also alt+enter, ctrl+j)")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel reply")),
		Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "scroll up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		LineUp:   key.NewBinding(key.WithKeys("shift+up"), key.WithHelp("shift+↑", "scroll a line up")),
		LineDown: key.NewBinding(key.WithKeys("shift+down"), key.WithHelp("shift+↓", "scroll a line down")),
		Bottom:   key.NewBinding(key.WithKeys("ctrl+end"), key.WithHelp("ctrl+end", "jump to the newest")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete a command or name; take a box that waits")),
		Thinking: key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "show/hide the thinking of the newest reply on screen")),
		Expand:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand/collapse tool results")),
		Copy:     key.NewBinding(key.WithKeys("ctrl+y"), key.WithHelp("ctrl+y", "copy the last answer")),
		CopyMode: key.NewBinding(key.WithKeys("ctrl+g"), key.WithHelp("ctrl+g", "copy a message, a tool result or a code block")),
		Mouse:    key.NewBinding(key.WithKeys("f2")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "keys and commands (empty input)")),
		Interrupt: key.NewBinding(key.WithKeys("ctrl+c"),
			key.WithHelp("ctrl+c", "stop what runs, or clear the input; twice: quit")),
		EOF:         key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "quit (empty input)")),
		HistoryUp:   key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "an earlier message or command (first line)")),
		HistoryDown: key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "a later one, then what you were typing (last line)")),
		Search:      key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "search earlier messages and commands")),
	}
}

// setMouse says in the mouse key's help what it does now.
func (k *keyMap) setMouse(on bool) {
	if on {
		k.Mouse.SetHelp("f2", "let go of the mouse: drag selects text (now the wheel scrolls)")
	} else {
		k.Mouse.SetHelp("f2", "take the mouse: the wheel scrolls (now a drag selects text)")
	}
}

// ShortHelp is the one-line key hint under the chat.
func (k keyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Cancel, k.Help, k.Quit}
}

// FullHelp lists every binding, for /help.
func (k keyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.Complete, k.Help},
		{k.Cancel, k.Interrupt, k.EOF, k.Copy, k.CopyMode, k.Mouse},
		{k.PageUp, k.PageDown, k.LineUp, k.LineDown, k.Bottom},
		{k.Thinking, k.Expand},
		{k.HistoryUp, k.HistoryDown, k.Search},
	}
}

// isText reports whether msg is text rather than a key: pasted characters,
// or a burst of typed ones. A burst arrives as one KeyRunes message whose
// String() is the text itself, so typing "ctrl+c" or "esc" fast (or pasting
// without bracketed paste) would spell a key's name; text never acts as a
// key. One character typed alone is that key (?, y, n, …).
func isText(msg tea.KeyMsg) bool {
	return msg.Type == tea.KeyRunes && (msg.Paste || len(msg.Runes) != 1)
}

// matches is key.Matches for keys only: text never matches a binding.
func matches(msg tea.KeyMsg, b key.Binding) bool {
	return !isText(msg) && key.Matches(msg, b)
}

// isRune reports whether msg is one of rs, typed alone.
func isRune(msg tea.KeyMsg, rs ...rune) bool {
	if msg.Type != tea.KeyRunes || isText(msg) || msg.Alt {
		return false
	}
	for _, r := range rs {
		if msg.Runes[0] == r {
			return true
		}
	}
	return false
}

// asText marks a burst of typed characters as a paste before it reaches an
// editor (the textarea, the token input), whose own bindings compare
// String() too: "ctrl+k" typed fast would delete the line, "ctrl+v" paste
// the clipboard. A paste's String() is bracketed, so no binding matches it.
func asText(msg tea.KeyMsg) tea.KeyMsg {
	if isText(msg) {
		msg.Paste = true
	}
	return msg
}
