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
	// The textarea draws with the style that Focus or Blur last pointed it
	// at, in the copy they were called on; point it at this copy's styles,
	// or it keeps drawing with its default (coloured) ones.
	if b.ta.Focused() {
		b.ta.Focus()
	} else {
		b.ta.Blur()
	}
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
		b.rescroll()
	}
	b.dirty = true
}

// rescroll scrolls the box, after it changed height, to show the most it
// can above the cursor. The textarea only ever scrolls the least that keeps
// the cursor in view: grown, it would keep its first lines hidden and show
// empty rows below. Going to the top and back makes it scroll afresh.
func (b *inputBox) rescroll() {
	row, li := b.ta.Line(), b.ta.LineInfo()
	col := li.StartColumn + li.ColumnOffset
	_ = b.ta.View() // the viewport scrolls within the content last drawn
	for i := 0; b.ta.Line() > 0 && i < 1<<16; i++ {
		b.ta.CursorUp()
	}
	b.ta.SetCursor(0)
	b.ta, _ = b.ta.Update(nil) // scrolls up to the cursor
	for i := 0; b.ta.Line() < row && i < 1<<16; i++ {
		b.ta.CursorDown()
	}
	b.ta.SetCursor(col)
	b.ta, _ = b.ta.Update(nil) // scrolls down to it again, if need be
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

// onFirstRow reports whether the cursor is on the box's first row (of the
// first line, wrapped or not): ↑ there walks the history.
func (b *inputBox) onFirstRow() bool {
	return b.ta.Line() == 0 && b.ta.LineInfo().RowOffset == 0
}

// onLastRow reports whether the cursor is on the box's last row: ↓ there
// walks the history.
func (b *inputBox) onLastRow() bool {
	li := b.ta.LineInfo()
	return b.ta.Line() == b.ta.LineCount()-1 && li.RowOffset >= li.Height-1
}

// setAtTop sets the text with the cursor on its first row, so that ↑
// goes on at once to an older entry: at its end when the text is one row,
// else at its start.
func (b *inputBox) setAtTop(s string) {
	b.set(s)
	if b.onFirstRow() {
		return
	}
	for i := 0; b.ta.Line() > 0 && i < 1<<16; i++ {
		b.ta.CursorUp()
	}
	b.ta.CursorStart()
	b.ta, _ = b.ta.Update(nil) // scrolls up to the cursor
	b.dirty = true
}
