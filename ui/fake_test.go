package ui

import (
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// fakeBackend is a session that is never started, whose actions the UI
// may take are recorded instead of done.
type fakeBackend struct {
	*session.Session
	mu       sync.Mutex
	sends    []string
	cancels  int
	asks     []session.Answer
	decided  []string
	connects []string
	tokens   []string
	servers  []session.ServerStatus
}

func (f *fakeBackend) Send(text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sends = append(f.sends, text)
	return nil
}

func (f *fakeBackend) Cancel() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancels++
}

func (f *fakeBackend) CancelTools() bool { return false }

func (f *fakeBackend) AnswerAsk(callID string, a session.Answer) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asks = append(f.asks, a)
	return true
}

func (f *fakeBackend) Decide(id string, approve bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decided = append(f.decided, id)
	return nil
}

func (f *fakeBackend) Servers() []session.ServerStatus { return f.servers }

func (f *fakeBackend) ServerNames() []string {
	var names []string
	for _, s := range f.servers {
		names = append(names, s.Name)
	}
	return names
}

func (f *fakeBackend) ConnectServer(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.connects = append(f.connects, name)
	return nil
}

func (f *fakeBackend) SetToken(name, token string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tokens = append(f.tokens, name)
	return nil
}

// fakeHarness is a UI over a fakeBackend with a clock the test moves.
type fakeHarness struct {
	t     testing.TB
	m     *Model
	b     *fakeBackend
	clock time.Time
}

func newFakeHarness(t testing.TB, w, h int) *fakeHarness {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef"})
	t.Cleanup(sess.Close)
	fh := &fakeHarness{t: t, b: &fakeBackend{Session: sess}, clock: fixedNow}
	fh.m = New(Options{Backend: fh.b, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fh.clock },
		DarkBackground: true, Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.Ascii})
	fh.m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return fh
}

func (fh *fakeHarness) feed(evs ...session.Event) { fh.m.Update(eventsMsg{events: evs}) }

// press sends one key message and returns every message its command
// produced (a batch is run through).
func (fh *fakeHarness) press(k tea.KeyMsg) []tea.Msg {
	_, cmd := fh.m.Update(k)
	return runCmd(cmd)
}

func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, runCmd(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

func runes(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

// pastGuard is the person stopping to look at the box in front: the last
// key and the box's times move back by typingPause; a box that waits is
// taken with Tab; then its guard is over too: its keys answer it.
func pastGuard(m *Model) {
	f := m.frontBox()
	if f == nil {
		return
	}
	if !m.lastKey.IsZero() {
		m.lastKey = m.lastKey.Add(-typingPause)
	}
	f.shown = f.shown.Add(-typingPause)
	if !f.focused() {
		m.Update(tea.KeyMsg{Type: tea.KeyTab})
	}
	f.took = f.took.Add(-modalGuard)
}
