package ui

import (
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// recorder is a Bubble Tea model that keeps every message after the
// start, until Ctrl+C (a byte of its own, 0x03).
type recorder struct{ msgs []tea.Msg }

func (r *recorder) Init() tea.Cmd { return nil }

func (r *recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyCtrlC && !k.Alt {
		return r, tea.Quit
	}
	switch msg.(type) {
	case tea.WindowSizeMsg:
		return r, nil
	}
	r.msgs = append(r.msgs, msg)
	return r, nil
}

func (r *recorder) View() string { return "" }

// teaInput is what Bubble Tea v1's own input reader makes of the bytes in:
// the messages a terminal's keys reach the model as.
func teaInput(t *testing.T, in string) []tea.Msg {
	t.Helper()
	rec := &recorder{}
	p := tea.NewProgram(rec, tea.WithInput(strings.NewReader(in+"\x03")), tea.WithOutput(io.Discard),
		tea.WithoutRenderer(), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("program: %v", err)
		}
	case <-time.After(20 * time.Second):
		p.Kill()
		t.Fatal("the program did not end")
	}
	return rec.msgs
}

// decodedKeys are the keys msgs stand for once decoded ("?" for one that is
// not a key).
func decodedKeys(msgs []tea.Msg) []string {
	var out []string
	for _, msg := range msgs {
		if k, ok := decodeKey(msg).(tea.KeyMsg); ok {
			out = append(out, k.String())
		} else {
			out = append(out, "?")
		}
	}
	return out
}

// TestDisambiguatedKeys: under the kitty keyboard protocol's disambiguate
// flag and xterm's modifyOtherKeys, the keys latch uses reach the model as
// the keys they are: Shift+Enter as the newline key (ctrl+j), Esc, Ctrl+C,
// Ctrl+D, Ctrl+J, Alt+Enter, Alt+letters, the keypad; keys sent as before
// are unchanged, and a key's release is no key.
func TestDisambiguatedKeys(t *testing.T) {
	cases := []struct{ in, want string }{
		{"\x1b[13;2u", "ctrl+j"},       // Shift+Enter, kitty
		{"\x1b[27;2;13~", "ctrl+j"},    // Shift+Enter, modifyOtherKeys
		{"\x1b[13;5u", "ctrl+j"},       // Ctrl+Enter
		{"\x1b[13;3u", "alt+enter"},    // kitty
		{"\x1b[27;3;13~", "alt+enter"}, // modifyOtherKeys
		{"\x1b[27u", "esc"},
		{"\x1b[99;5u", "ctrl+c"},
		{"\x1b[100;5u", "ctrl+d"},
		{"\x1b[106;5u", "ctrl+j"},
		{"\x1b[121;5u", "ctrl+y"},
		{"\x1b[103;5u", "ctrl+g"},
		{"\x1b[111;5u", "ctrl+o"},
		{"\x1b[98;3u", "alt+b"},
		{"\x1b[9;2u", "shift+tab"},
		{"\x1b[127;3u", "alt+backspace"},
		{"\x1b[57414u", "enter"}, // keypad Enter
		{"\x1b[57401u", "2"},     // keypad 2
		{"\x1b[57421u", "pgup"},  // keypad PgUp
		{"\x1b[97;1:3u", "?"},    // a release
		// Sent as before:
		{"\r", "enter"}, {"\t", "tab"}, {"\x1b[A", "up"}, {"\x1b[B", "down"},
		{"\x1b[5~", "pgup"}, {"\x1b[6~", "pgdown"}, {"\x1b\r", "alt+enter"}, {"\n", "ctrl+j"},
		{"\x1b[1;2A", "shift+up"}, {"\x1b[1;5F", "ctrl+end"}, {"\x1bOQ", "f2"}, {"x", "x"},
	}
	var in strings.Builder
	for _, c := range cases {
		in.WriteString(c.in)
	}
	got := decodedKeys(teaInput(t, in.String()))
	if len(got) != len(cases) {
		t.Fatalf("%d keys, want %d: %q", len(got), len(cases), got)
	}
	for i, c := range cases {
		if got[i] != c.want {
			t.Errorf("%q is %q, want %q", c.in, got[i], c.want)
		}
	}
}

// TestShiftEnterInsertsNewline: Shift+Enter from a terminal that tells it
// apart (kitty's CSI 13;2u, xterm's CSI 27;2;13~) puts a newline in the
// input and sends nothing; Enter then sends the message whole.
func TestShiftEnterInsertsNewline(t *testing.T) {
	for _, seq := range []string{"\x1b[13;2u", "\x1b[27;2;13~"} {
		fh := newFakeHarness(t, 80, 20)
		for _, msg := range teaInput(t, "one"+seq+"two") {
			fh.m.Update(msg)
		}
		if got := fh.m.input.value(); got != "one\ntwo" {
			t.Errorf("%q: the input is %q, want \"one\\ntwo\"", seq, got)
		}
		if len(fh.b.sends) != 0 {
			t.Errorf("%q: sent %q", seq, fh.b.sends)
		}
		fh.press(tea.KeyMsg{Type: tea.KeyEnter})
		if len(fh.b.sends) != 1 || fh.b.sends[0] != "one\ntwo" {
			t.Errorf("%q: Enter sent %q", seq, fh.b.sends)
		}
	}
}

// panicky is a model that panics on its first key.
type panicky struct{}

func (panicky) Init() tea.Cmd { return nil }
func (panicky) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(tea.KeyMsg); ok {
		panic("a bug")
	}
	return panicky{}, nil
}
func (panicky) View() string { return "" }

// TestKeysGivenBackOnPanic: through TeaOutput, the terminal is asked for
// disambiguated keys once Bubble Tea is in the alternate screen, and told
// to stop before it leaves it, also when the program ends by a panic
// (Bubble Tea recovers it and puts the terminal back).
func TestKeysGivenBackOnPanic(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "tty")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := tea.NewProgram(panicky{}, tea.WithInput(strings.NewReader("x")), tea.WithOutput(TeaOutput(f)),
		tea.WithAltScreen(), tea.WithoutSignalHandler())
	if _, err := p.Run(); !errors.Is(err, tea.ErrProgramPanic) {
		t.Fatalf("run: %v, want the panic", err)
	}
	out, err := os.ReadFile(f.Name())
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	on, off := strings.Index(s, "\x1b[?1049h"), strings.LastIndex(s, "\x1b[?1049l")
	if on < 0 || off < 0 {
		t.Fatalf("no alternate screen: %q", s)
	}
	if i := strings.Index(s, keysOn); i < on || i > off {
		t.Errorf("keys asked for at %d, the alternate screen is %d–%d: %q", i, on, off, s)
	}
	if i := strings.LastIndex(s, keysOff); i < on || i > off {
		t.Errorf("keys given back at %d, the alternate screen is %d–%d: %q", i, on, off, s)
	}
}
