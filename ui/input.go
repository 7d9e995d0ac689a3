package ui

import (
	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"

	"latch/themes"
)

// maxInputRows is how tall the input grows before it scrolls.
const maxInputRows = 8

// inputBox is the message editor: a textarea whose View is cached, since
// bubbletea calls View after every message and textarea.View is costly.
type inputBox struct {
	ta    textarea.Model
	view  string
	dirty bool
}

func newInputBox(st *themes.Styles) inputBox {
	ta := textarea.New()
	ta.Placeholder = "Ask anything · /help for commands"
	ta.Prompt = "> "
	ta.ShowLineNumbers = false
	ta.CharLimit = 0
	ta.MaxHeight = 0 // no line limit: long pastes stay whole
	ta.SetHeight(1)
	// Enter sends; Alt+Enter and Ctrl+J insert a newline.
	ta.KeyMap.InsertNewline.SetKeys("alt+enter", "ctrl+j")
	ta.Cursor.SetMode(cursor.CursorStatic) // a blinking cursor costs idle CPU
	ta.Focus()
	b := inputBox{ta: ta, dirty: true}
	b.restyle(st)
	return b
}

// restyle applies the theme's input styles.
func (b *inputBox) restyle(st *themes.Styles) {
	b.ta.FocusedStyle.CursorLine = st.Input.Text
	b.ta.FocusedStyle.Prompt = st.Input.Prompt
	b.ta.FocusedStyle.Text = st.Input.Text
	b.ta.FocusedStyle.Placeholder = st.Input.Placeholder
	b.ta.BlurredStyle = b.ta.FocusedStyle
	b.dirty = true
}

func (b *inputBox) setWidth(w int) {
	b.ta.SetWidth(w)
	b.fit()
}

// fit grows the box with its content, up to maxInputRows.
func (b *inputBox) fit() {
	h := min(max(b.ta.LineCount(), 1), maxInputRows)
	if h != b.ta.Height() {
		b.ta.SetHeight(h)
	}
	b.dirty = true
}

func (b *inputBox) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	b.ta, cmd = b.ta.Update(msg)
	b.fit()
	return cmd
}

func (b *inputBox) value() string { return b.ta.Value() }

func (b *inputBox) set(s string) {
	b.ta.SetValue(s)
	b.fit()
}

func (b *inputBox) reset() {
	b.ta.Reset()
	b.fit()
}

func (b *inputBox) height() int { return b.ta.Height() }

func (b *inputBox) render() string {
	if b.dirty {
		b.view = b.ta.View()
		b.dirty = false
	}
	return b.view
}
