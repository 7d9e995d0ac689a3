package ui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
)

// recorder is a Bubble Tea model that keeps every message after the
// start, until Ctrl+_ (0x1f, a key no test reads).
type recorder struct{ msgs []tea.Msg }

func (r *recorder) Init() tea.Cmd { return nil }

func (r *recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyCtrlUnderscore && !k.Alt {
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

// chunkReader gives its chunks one a Read, then io.EOF. After each Read
// but the first it sends on copied, when there is one.
type chunkReader struct {
	chunks []string
	reads  int
	copied chan<- struct{}
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, c.chunks[0])
	if c.chunks[0] = c.chunks[0][n:]; c.chunks[0] == "" {
		c.chunks = c.chunks[1:]
	}
	if c.reads++; c.reads > 1 && c.copied != nil {
		c.copied <- struct{}{}
	}
	return n, nil
}

// runTea runs model on the keys read from r, as latch reads them (through
// its key reader), until the model quits.
func runTea(t *testing.T, model tea.Model, r io.Reader) {
	t.Helper()
	p := tea.NewProgram(model, tea.WithInput(newKeyReader(r, LateAnswers{})), tea.WithOutput(io.Discard),
		tea.WithoutRenderer(), tea.WithoutSignalHandler())
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("program: %v", err)
		}
	case <-time.After(mcptestutil.HangBound(0)):
		p.Kill()
		t.Fatal("the program did not end")
	}
}

// teaInput is what Bubble Tea v1's own input reader, reading as latch
// does, makes of chunks, each one read of the terminal: the messages a
// terminal's keys reach the model as.
func teaInput(t *testing.T, chunks ...string) []tea.Msg {
	t.Helper()
	rec := &recorder{}
	runTea(t, rec, &chunkReader{chunks: append(slices.Clone(chunks), "\x1f")})
	return rec.msgs
}

// keysOf are the keys msgs are ("?" for one that is not a key).
func keysOf(msgs []tea.Msg) []string {
	var out []string
	for _, msg := range msgs {
		if k, ok := msg.(tea.KeyMsg); ok {
			out = append(out, k.String())
		} else {
			out = append(out, "?")
		}
	}
	return out
}

// keyCases are disambiguated keys and the keys they are, and keys sent as
// before. A release is no key ("").
var keyCases = []struct{ in, want string }{
	{"\x1b[13;2u", "ctrl+j"},       // Shift+Enter, kitty
	{"\x1b[27;2;13~", "ctrl+j"},    // Shift+Enter, modifyOtherKeys
	{"\x1b[13;5u", "ctrl+j"},       // Ctrl+Enter
	{"\x1b[13;3u", "alt+enter"},    // kitty
	{"\x1b[27;3;13~", "alt+enter"}, // modifyOtherKeys
	{"\x1b[27u", "esc"},
	{"\x1b[27;3u", "alt+esc"},
	{"\x1b[99;5u", "ctrl+c"},
	{"\x1b[100;5u", "ctrl+d"},
	{"\x1b[106;5u", "ctrl+j"},
	{"\x1b[121;5u", "ctrl+y"},
	{"\x1b[103;5u", "ctrl+g"},
	{"\x1b[111;5u", "ctrl+o"},
	{"\x1b[97;7u", "alt+ctrl+a"},
	{"\x1b[32;5u", "ctrl+@"},
	{"\x1b[92;5u", "ctrl+\\"},
	{"\x1b[98;3u", "alt+b"},
	{"\x1b[98;2u", "B"},
	{"\x1b[233;3u", "alt+é"},
	{"\x1b[9;2u", "shift+tab"},
	{"\x1b[127;3u", "alt+backspace"},
	{"\x1b[57414u", "enter"}, // keypad Enter
	{"\x1b[57401u", "2"},     // keypad 2
	{"\x1b[57421u", "pgup"},  // keypad PgUp
	{"\x1b[57419;3u", "alt+up"},
	{"\x1b[57424u", "end"},
	{"\x1b[57426u", "delete"},
	{"\x1b[97;1:3u", ""}, // a release
	// Sent as before:
	{"\r", "enter"}, {"\t", "tab"}, {"\x1b[A", "up"}, {"\x1b[B", "down"},
	{"\x1b[5~", "pgup"}, {"\x1b[6~", "pgdown"}, {"\x1b\r", "alt+enter"}, {"\n", "ctrl+j"},
	{"\x1b[1;2A", "shift+up"}, {"\x1b[1;5F", "ctrl+end"}, {"\x1bOQ", "f2"}, {"x", "x"}, {"\x1b", "esc"},
}

// TestDisambiguatedKeys: under the kitty keyboard protocol's disambiguate
// flag and xterm's modifyOtherKeys, the keys latch uses reach the model as
// the keys they are: Shift+Enter as the newline key (ctrl+j), Esc, Ctrl+C,
// Ctrl+D, Ctrl+J, Alt+Enter, Alt+letters, the keypad; keys sent as before
// are unchanged, and a key's release is no key.
func TestDisambiguatedKeys(t *testing.T) {
	for _, c := range keyCases {
		got := keysOf(teaInput(t, c.in))
		var want []string
		if c.want != "" {
			want = []string{c.want}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q is %q, want %q", c.in, got, want)
		}
	}
}

// decodeReads is what the key decoder makes of reads, one after another.
func decodeReads(reads ...string) string {
	var d keyDecoder
	var out []byte
	for _, r := range reads {
		out = d.decode(out, []byte(r))
	}
	return string(append(out, d.flush()...))
}

// TestKeySequenceSplitAcrossReads: a key sequence cut anywhere between two
// reads (past its Esc) is the same key; so is one read a byte at a time.
func TestKeySequenceSplitAcrossReads(t *testing.T) {
	for _, c := range keyCases {
		whole := decodeReads(c.in)
		for i := 2; i < len(c.in); i++ {
			if got := decodeReads(c.in[:i], c.in[i:]); got != whole {
				t.Errorf("%q cut at %d: %q, want %q", c.in, i, got, whole)
			}
		}
		bytewise := strings.Split(c.in, "")
		if len(c.in) > 2 {
			bytewise = append([]string{c.in[:2]}, strings.Split(c.in[2:], "")...)
		}
		if got := decodeReads(bytewise...); got != whole {
			t.Errorf("%q a byte a read: %q, want %q", c.in, got, whole)
		}
	}
	for _, seq := range []string{"\x1b[13;2u", "\x1b[27;2;13~"} {
		for i := 2; i < len(seq); i++ {
			got := keysOf(teaInput(t, "one", seq[:i], seq[i:], "two"))
			if want := []string{"one", "ctrl+j", "two"}; !slices.Equal(got, want) {
				t.Errorf("%q cut at %d: %q, want %q", seq, i, got, want)
			}
		}
	}
}

// TestLoneEscIsEsc: an Esc that ends a read is the Esc key at once, not
// held for what may follow; "Esc [" is held for the rest of its sequence.
func TestLoneEscIsEsc(t *testing.T) {
	var d keyDecoder
	if got := string(d.decode(nil, []byte("ab\x1b"))); got != "ab\x1b" || d.held != nil {
		t.Errorf("\"ab\\x1b\" gave %q and held %q", got, d.held)
	}
	if got := keysOf(teaInput(t, "\x1b", "x")); !slices.Equal(got, []string{"esc", "x"}) {
		t.Errorf("Esc, then x: %q", got)
	}
	if got := decodeReads("ab\x1b[", "13;2u"); got != "ab\n" {
		t.Errorf("\"ab\\x1b[\", then \"13;2u\": %q", got)
	}
}

// TestPasteIsNotDecoded: what is pasted (bracketed) passes untouched,
// even a key sequence in it, however the reads cut it (past an Esc:
// a lone Esc is the Esc key); the keys after the paste are keys again.
func TestPasteIsNotDecoded(t *testing.T) {
	body := "a\x1b[13;2ub\x1b[201"
	in := pasteStart + body + pasteEnd + "\x1b[13;2u"
	want := pasteStart + body + pasteEnd + "\n"
	for i := 0; i <= len(in); i++ {
		if i > 0 && in[i-1] == 0x1b {
			continue
		}
		if got := decodeReads(in[:i], in[i:]); got != want {
			t.Errorf("cut at %d: %q, want %q", i, got, want)
		}
	}
	msgs := teaInput(t, in)
	if len(msgs) != 2 {
		t.Fatalf("%d messages, want the paste and a key: %q", len(msgs), keysOf(msgs))
	}
	if k, ok := msgs[0].(tea.KeyMsg); !ok || !k.Paste || string(k.Runes) != body {
		t.Errorf("the paste is %#v, want %q", msgs[0], body)
	}
	if got := keysOf(msgs[1:]); got[0] != "ctrl+j" {
		t.Errorf("the key after the paste is %q", got)
	}
}

// TestOtherSequencesPassThrough: a mouse report, a focus report and a
// sequence far too long to be a key pass on as they came, and the keys
// after them still come.
func TestOtherSequencesPassThrough(t *testing.T) {
	junk := "\x1b[" + strings.Repeat("1", 297) + "u"
	for _, in := range []string{"\x1b[<0;10;5M\x1b[<0;10;5m", "\x1b[I", "\x1b[?1u", junk} {
		if got := decodeReads(in); got != in {
			t.Errorf("%.40q became %.40q", in, got)
		}
	}
	if got := decodeReads(junk[:150], junk[150:]); got != junk {
		t.Errorf("the junk, cut, became %.40q", got)
	}
	got := keysOf(teaInput(t, junk, "x"))
	if len(got) == 0 || got[len(got)-1] != "x" {
		t.Errorf("after a 300-byte sequence: %q, want x last", got)
	}
}

// TestKeyNoLongerThanItsSequence: the bytes of a key are never more than
// its sequence, which keyReader's Read relies on.
func TestKeyNoLongerThanItsSequence(t *testing.T) {
	// Every one of the 6 million sequences, written without fmt (its
	// Sprintf was most of this test's time under -race), the codes split
	// among the cores.
	const codes = 0x30000
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var kitty, xterm []byte
			for code := w * codes / workers; code < (w+1)*codes/workers; code++ {
				c := strconv.Itoa(code)
				for mods := 1; mods <= 16; mods++ {
					m := strconv.Itoa(mods)
					kitty = append(append(append(append(append(kitty[:0], "\x1b["...), c...), ';'), m...), 'u')
					xterm = append(append(append(append(append(xterm[:0], "\x1b[27;"...), m...), ';'), c...), '~')
					for _, seq := range [2][]byte{kitty, xterm} {
						if key, ok := parseKeySeq(string(seq)); ok && len(key) > len(seq) {
							t.Errorf("%q is %q, longer", seq, key)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
}

// liveModel hands each message to a latch model only once Bubble Tea's
// reader has read the keys after it (copied): the reader is ahead of the
// model, as when keys come quickly.
type liveModel struct {
	m      *Model
	copied <-chan struct{}
}

func (l *liveModel) Init() tea.Cmd { return nil }

func (l *liveModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && k.Type == tea.KeyCtrlC {
		return l, tea.Quit
	}
	select {
	case <-l.copied:
	case <-time.After(2 * time.Second): // no more reads: go on
	}
	l.m.Update(msg)
	return l, nil
}

func (l *liveModel) View() string { return "" }

// TestShiftEnterThenMoreKeys: Shift+Enter followed at once by a word,
// read before the model has handled the Shift+Enter, is still a newline
// in the input, every time, with either encoding.
func TestShiftEnterThenMoreKeys(t *testing.T) {
	fh := newFakeHarness(t, 80, 20)
	var chunks []string
	var want strings.Builder
	for i := range 30 {
		seq := "\x1b[13;2u"
		if i%2 == 1 {
			seq = "\x1b[27;2;13~"
		}
		chunks = append(chunks, fmt.Sprintf("w%d", i), seq)
		fmt.Fprintf(&want, "w%d\n", i)
	}
	chunks = append(chunks, "\x03")
	copied := make(chan struct{}, len(chunks))
	runTea(t, &liveModel{m: fh.m, copied: copied}, &chunkReader{chunks: chunks, copied: copied})
	if got := fh.m.input.value(); got != want.String() {
		t.Errorf("the input is %q, want %q", got, want.String())
	}
	if len(fh.b.sends) != 0 {
		t.Errorf("sent %q", fh.b.sends)
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

// TestLateTerminalAnswerIsNoKey: the terminal's answer to latch's
// background query (OSC 11) that comes after latch stopped waiting for it
// (a slow link, a busy machine: it was typed into the input as
// "]11;rgb:0000/0000/0000\") is dropped, with BEL or ST at its end, cut
// anywhere between reads past its Esc ] (a read ending in Esc or Esc ] is
// the Esc key or Alt+], passed on at once); Alt+] and what looks only
// partly like an answer stay keys, and a paste keeps whatever it holds.
func TestLateTerminalAnswerIsNoKey(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"\x1b]11;rgb:0000/0000/0000\x1b\\/connect bg", "/connect bg"},
		{"a\x1b]11;rgb:ffff/ffff/ffff\x07b", "ab"},
		{"\x1b]10;rgb:1e/1e/2e\x07\x1b]11;rgb:0/0/0\x07x", "x"},
		{"\x1b]", "\x1b]"},
		{"\x1b]x", "\x1b]x"},
		{"\x1b]1x", "\x1b]1x"},
		{"\x1b]11;ab\x01c\x07", "\x1b]11;ab\x01c\x07"},
		{"\x1b]11;" + strings.Repeat("x", 200) + "\x07", "\x1b]11;" + strings.Repeat("x", 200) + "\x07"},
		{"\x1b[200~\x1b]11;rgb:0/0/0\x07\x1b[201~", "\x1b[200~\x1b]11;rgb:0/0/0\x07\x1b[201~"},
	} {
		if got := decodeReads(c.in); got != c.want {
			t.Errorf("%q decodes to %q, want %q", c.in, got, c.want)
		}
		for i := 1; i < len(c.in); i++ {
			if strings.HasSuffix(c.in[:i], "\x1b") || strings.HasSuffix(c.in[:i], "\x1b]") {
				continue
			}
			if got := decodeReads(c.in[:i], c.in[i:]); got != c.want {
				t.Errorf("%q cut at %d decodes to %q, want %q", c.in, i, got, c.want)
			}
		}
	}
	if got := keysOf(teaInput(t, "\x1b]11;rgb:0000/0000/0000\x1b\\", "x")); !slices.Equal(got, []string{"x"}) {
		t.Errorf("Bubble Tea got %q, want only x", got)
	}
}

// TestLateSyncAnswerIsNoKey: the terminal's answers to the question about
// synchronized output (DECRPM, then DA1) that come after latch stopped
// waiting are dropped, cut anywhere between reads past their Esc (a read
// ending in Esc is the Esc key, passed on at once), and what the DECRPM
// said of mode 2026 is told to late.Sync; the keys around them stay.
func TestLateSyncAnswerIsNoKey(t *testing.T) {
	for _, c := range []struct {
		in, want string
		told     []bool
	}{
		{"a\x1b[?2026;2$y\x1b[?62;22cb", "ab", []bool{true}},
		{"\x1b[?2026;1$yx", "x", []bool{true}},
		{"\x1b[?2026;0$y\x1b[?1;2cx", "x", []bool{false}},
		{"\x1b[?2004;1$yx", "x", nil},
		{"\x1b[?62;22c", "", nil},
		{"\x1b[?1u\x1b[?2026$p", "\x1b[?1u\x1b[?2026$p", nil}, // no answer of theirs
		{"\x1b[2026;2$yx", "\x1b[2026;2$yx", nil},
	} {
		for i := 2; i <= len(c.in); i++ {
			if strings.HasSuffix(c.in[:i], "\x1b") {
				continue
			}
			var told []bool
			d := keyDecoder{late: LateAnswers{Sync: func(on bool) { told = append(told, on) }}}
			out := d.decode(nil, []byte(c.in[:i]))
			out = d.decode(out, []byte(c.in[i:]))
			out = append(out, d.flush()...)
			if string(out) != c.want || !slices.Equal(told, c.told) {
				t.Errorf("%q cut at %d decodes to %q telling %v, want %q telling %v", c.in, i, out, told, c.want, c.told)
			}
		}
	}
}

// TestLateBackgroundAnswerIsNoKey: the terminal's answer about its
// background (OSC 11, then DA1) that comes after latch stopped waiting is
// dropped, cut anywhere between reads past its Esc ] (a read ending in Esc
// or Esc ] is a key, passed on at once), and whether the colour
// is dark is told to late.Background; the keys around it stay. Text pasted
// (bracketed paste) that looks like an answer is text, and tells nothing.
func TestLateBackgroundAnswerIsNoKey(t *testing.T) {
	for _, c := range []struct {
		in, want string
		told     []bool
	}{
		{"a\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22cb", "ab", []bool{false}},
		{"\x1b]11;rgb:0000/0000/0000\ax", "x", []bool{true}},
		{"\x1b]11;rgb:f0/f0/e8\x1b\\", "", []bool{false}},
		{"\x1b]10;rgb:ffff/ffff/ffff\x1b\\x", "x", nil}, // the foreground's: no background
		{"\x1b]11;rgb:zz/00/00\x1b\\x", "x", nil},
		{pasteStart + "\x1b]11;rgb:ffff/ffff/ffff\x1b\\" + pasteEnd + "y",
			pasteStart + "\x1b]11;rgb:ffff/ffff/ffff\x1b\\" + pasteEnd + "y", nil},
	} {
		for i := 2; i <= len(c.in); i++ {
			if strings.HasSuffix(c.in[:i], "\x1b") || strings.HasSuffix(c.in[:i], "\x1b]") {
				continue
			}
			var told []bool
			d := keyDecoder{late: LateAnswers{Background: func(dark bool) { told = append(told, dark) }}}
			out := d.decode(nil, []byte(c.in[:i]))
			out = d.decode(out, []byte(c.in[i:]))
			out = append(out, d.flush()...)
			if string(out) != c.want || !slices.Equal(told, c.told) {
				t.Errorf("%q cut at %d decodes to %q telling %v, want %q telling %v", c.in, i, out, told, c.want, c.told)
			}
		}
	}
}
