package ui

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

func init() {
	lipgloss.SetColorProfile(termenv.Ascii)
	lipgloss.SetHasDarkBackground(true)
}

// harness is a UI model wired to a real session talking to a fake Ollama.
type harness struct {
	t    *testing.T
	srv  *ollamatest.Server
	sess *session.Session
	sub  *session.Sub
	m    *Model
	// unseen are events already fed to the model, in the batch where
	// the last wait stopped, that came after the one it stopped at: the
	// next wait looks at them first.
	unseen []session.Event
	// unfed are events received but not fed to the model yet, after the
	// one untilEventAlone stopped at: the next wait feeds them first.
	unfed []session.Event
	// trail is every event fed to the model, batch by batch, for a
	// failure's report (report).
	trail []string
}

func newHarness(t *testing.T, w, h int, models ...ollamatest.Model) *harness {
	t.Helper()
	return newHarnessWith(t, w, h, func(*session.Options) {}, models...)
}

// newHarnessWith is newHarness with the session's options changed by
// tweak.
func newHarnessWith(t *testing.T, w, h int, tweak func(*session.Options), models ...ollamatest.Model) *harness {
	t.Helper()
	if len(models) == 0 {
		models = []ollamatest.Model{{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}, Size: 5_200_000_000, ParameterSize: "8.2B"}}
	}
	srv := ollamatest.New(models...)
	t.Cleanup(srv.Close)
	think := true
	o := session.Options{Model: models[0].Name, Think: &think}
	tweak(&o)
	return newHarnessOn(t, w, h, srv, o)
}

// newHarnessOn is newHarness over a given fake Ollama, with a session of
// the given options (Client, Host and ID filled in).
func newHarnessOn(t *testing.T, w, h int, srv *ollamatest.Server, o session.Options) *harness {
	t.Helper()
	o.Client, o.Host, o.ID = srv.Client(), "127.0.0.1:11434", "20261129-120000-abcdef"
	if u, err := url.Parse(srv.URL); err == nil {
		o.Raw = session.RawOllama{URL: u, HTTP: srv.HTTPClient()}
	}
	sess := session.New(o)
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &harness{t: t, srv: srv, sess: sess, sub: sub, m: m}
}

// untilEvent feeds events to the model until one satisfies stop. The
// model gets whole batches, as from the program; the events of the batch
// after the one that stopped the wait are looked at by the next wait
// first, so that two waits in a row (a turn's UserMessage, then its
// TurnDone) see every event once, in order, however the session batched
// them.
func (h *harness) untilEvent(stop func(session.Event) bool) {
	h.t.Helper()
	bound := mcptestutil.HangBound(0) // a hang's bound, not a measure
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for {
		for i, e := range h.unseen {
			if stop(e) {
				h.unseen = h.unseen[i+1:]
				return
			}
		}
		h.unseen = nil
		evs := h.next(ctx, bound)
		h.note(evs)
		h.m.Update(eventsMsg{events: evs})
		h.unseen = evs
	}
}

// next is the next batch of events to feed: those untilEventAlone left
// unfed, else the subscription's next.
func (h *harness) next(ctx context.Context, bound time.Duration) []session.Event {
	h.t.Helper()
	if evs := h.unfed; len(evs) > 0 {
		h.unfed = nil
		return evs
	}
	evs, ok := h.sub.Next(ctx)
	if !ok {
		h.t.Fatalf("the event did not come within %v\n%s", bound, h.report())
	}
	return evs
}

// untilEventAlone is untilEvent for a state between two events that
// came together: it feeds the model one event at a time and stops right
// after the one stop accepts, the rest of its batch not fed yet (the next
// wait feeds them), as if they had come in the next batch.
func (h *harness) untilEventAlone(stop func(session.Event) bool) {
	h.t.Helper()
	for i, e := range h.unseen { // already fed
		if stop(e) {
			h.unseen = h.unseen[i+1:]
			return
		}
	}
	h.unseen = nil
	bound := mcptestutil.HangBound(0)
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	for {
		evs := h.next(ctx, bound)
		for i, e := range evs {
			h.note(evs[i : i+1])
			h.m.Update(eventsMsg{events: evs[i : i+1]})
			if stop(e) {
				h.unfed = evs[i+1:]
				return
			}
		}
	}
}

// untilTurnDone feeds queued events to the model until a turn ends.
func (h *harness) untilTurnDone() {
	h.t.Helper()
	h.untilEvent(func(e session.Event) bool {
		_, ok := e.(*session.TurnDone)
		return ok
	})
}

func (h *harness) typeText(s string) {
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)})
}

func (h *harness) key(k tea.KeyType) tea.Cmd {
	_, cmd := h.m.Update(tea.KeyMsg{Type: k})
	return cmd
}

// send types a prompt, presses Enter and waits for the reply to finish.
func (h *harness) send(prompt string) {
	h.typeText(prompt)
	h.key(tea.KeyEnter)
	h.untilTurnDone()
}

const replyOne = "Here is a **plan**:\n\n1. Read the file\n2. Count the lines\n\n```go\nfmt.Println(\"hi\")\n```\n\nDone."

func TestGoldenTwoTurns(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.srv.Script(
		ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("The user wants a plan."), ollamatest.Tokens(replyOne)...)},
		ollamatest.TextTurn("A *short* second answer with `code`."),
	)
	h.send("Make a plan")
	h.send("And then?")
	golden.RequireEqual(t, []byte(h.m.View()))
}

func TestSlashCommandsNeverReachTheModel(t *testing.T) {
	h := newHarness(t, 80, 24)
	for _, line := range []string{"/nosuch", "/clear extra", "/help"} {
		h.m.input.reset() // a failed command's text stays in the input
		h.typeText(line)
		h.key(tea.KeyEnter)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("slash commands sent %d requests to the model", n)
	}
	v := h.m.View()
	h.key(tea.KeyPgDown) // the overview's next page
	v += h.m.View()
	for _, want := range []string{"unknown command /nosuch", "usage: /clear", "Commands", "/model [NAME]"} {
		if !strings.Contains(v, want) && !strings.Contains(allText(h.m), want) {
			t.Errorf("screen lacks %q", want)
		}
	}
}

// allText is every entry's layout, for assertions beyond one screen.
func allText(m *Model) string {
	var b strings.Builder
	for i := range m.chat.entries {
		for _, seg := range m.chat.lines(i) {
			b.WriteString(strings.Join(seg, "\n"))
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestEnterSendsAltEnterAddsNewline(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("line one")
	h.m.Update(tea.KeyMsg{Type: tea.KeyEnter, Alt: true})
	h.typeText("line two")
	h.key(tea.KeyCtrlJ)
	h.typeText("line three")
	if got := h.m.input.value(); got != "line one\nline two\nline three" {
		t.Fatalf("input = %q", got)
	}
	h.key(tea.KeyEnter)
	h.untilTurnDone()
	reqs := h.srv.Requests()
	if len(reqs) != 1 || reqs[0].Messages[0].Content != "line one\nline two\nline three" {
		t.Fatalf("sent %+v", reqs)
	}
}

func TestPasteStaysOneMessage(t *testing.T) {
	h := newHarness(t, 80, 24)
	paste := "first line\nsecond line\n\nfourth line"
	h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(paste), Paste: true})
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("a paste sent %d requests", n)
	}
	if got := h.m.input.value(); got != paste {
		t.Fatalf("input after paste = %q", got)
	}
	h.key(tea.KeyEnter)
	h.untilTurnDone()
	if got := h.srv.Requests()[0].Messages[0].Content; got != paste {
		t.Fatalf("sent %q", got)
	}
}

func TestEscCancelsAndKeepsPartialReply(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("word ", 400)), Delay: 10 * time.Millisecond})
	h.typeText("talk")
	h.key(tea.KeyEnter)
	// Wait for some words, then press Esc.
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(0))
	defer cancel()
	for !strings.Contains(h.m.View(), "word word") {
		evs, ok := h.sub.Next(ctx)
		if !ok {
			t.Fatal("no words arrived")
		}
		h.m.Update(eventsMsg{events: evs})
	}
	h.key(tea.KeyEsc)
	h.untilTurnDone()
	v := h.m.View()
	if !strings.Contains(v, "cancelled") || !strings.Contains(v, "word word") {
		t.Fatalf("after Esc the screen should keep the partial reply marked cancelled:\n%s", v)
	}
	if h.m.running {
		t.Fatal("still running after cancel")
	}
}

func TestStreamErrorsShowOneLine(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.srv.Script(
		ollamatest.Turn{Chunks: ollamatest.Tokens("partial answer that"), CutAfter: 2},
		ollamatest.Turn{Chunks: ollamatest.Tokens("some words then"), ErrorAfter: 2, Error: "an error was encountered while running the model"},
	)
	h.send("one")
	h.send("two")
	v := allText(h.m)
	for _, want := range []string{"✗ the reply was cut off", "✂ cut off", "an error was encountered while running the model"} {
		if !strings.Contains(v, want) {
			t.Errorf("screen lacks %q:\n%s", want, v)
		}
	}
}

func TestScrollDoesNotFightFollow(t *testing.T) {
	h := newHarness(t, 60, 12)
	for i := 0; i < 3; i++ {
		h.srv.Script(ollamatest.TextTurn(strings.Repeat("filler line\n\n", 6)))
		h.send("prompt")
	}
	// A new reply streams while the user reads history: the view stays put.
	h.srv.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(strings.Repeat("new text\n\n", 10)), Delay: time.Millisecond})
	h.typeText("more")
	h.key(tea.KeyEnter)
	h.key(tea.KeyPgUp)
	before := h.m.View()
	h.untilTurnDone()
	if got := h.m.View(); chatBody(got) != chatBody(before) {
		t.Fatalf("view moved while scrolled up:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	h.key(tea.KeyPgDown)
	h.key(tea.KeyPgDown)
	h.key(tea.KeyPgDown)
	h.key(tea.KeyPgDown)
	if !strings.Contains(h.m.View(), "new text") || h.m.chat.scrolledUp() {
		t.Fatalf("PgDn to the end should follow the newest text again:\n%s", h.m.View())
	}
}

// chatBody drops the status line, which shows the token rate.
func chatBody(v string) string {
	_, body, _ := strings.Cut(v, "\n")
	return body
}

func TestControlSequencesFromTheModelAreNeutralised(t *testing.T) {
	h := newHarness(t, 80, 24)
	evil := "safe \x1b]52;c;ZXZpbA==\x07 \x1b]0;pwned\x07 \x1b[2J \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ \u202eevil \u009b31m"
	h.srv.Script(ollamatest.TextTurn(evil))
	h.send("hi")
	v := h.m.View()
	for _, bad := range []string{"\x1b", "\x07", "\u009b", "\u202e"} {
		if strings.Contains(v, bad) {
			t.Fatalf("screen contains %q", bad)
		}
	}
	if !strings.Contains(v, "␛]52;c;ZXZpbA==␇") {
		t.Fatalf("the neutralised sequence should be visible:\n%s", v)
	}
}

func TestNoModelOpensPickerOverInstalledModels(t *testing.T) {
	srv := ollamatest.New(
		ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools", "thinking"}, Size: 5_200_000_000, ParameterSize: "8.2B"},
		ollamatest.Model{Name: "llama3.2:3b", Capabilities: []string{"completion", "tools"}, Size: 2_000_000_000, ParameterSize: "3.2B"},
		ollamatest.Model{Name: "gemma:2b", Size: 1_700_000_000, ParameterSize: "2B"},
	)
	defer srv.Close()
	sess := session.New(session.Options{Client: srv.Client(), Host: "127.0.0.1:11434", ID: "20261129-120000-abcdef"})
	defer sess.Close()
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	// Init lists the models (the event reader is not started here).
	m.Update(m.listModels(true)())
	if m.picker == nil {
		t.Fatalf("no picker opened:\n%s", m.View())
	}
	t.Run("picker", func(t *testing.T) { golden.RequireEqual(t, []byte(m.View())) })
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("llama")})
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if cmd == nil {
		t.Fatal("enter in the picker did nothing")
	}
	m.Update(cmd())
	if got := sess.Model(); got != "llama3.2:3b" {
		t.Fatalf("model = %q, want llama3.2:3b", got)
	}
	if !strings.Contains(m.View(), "model: llama3.2:3b (tools)") {
		t.Fatalf("no confirmation:\n%s", m.View())
	}
}

func TestModelsListsSizeAndCapabilities(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("/models")
	cmd := h.key(tea.KeyEnter)
	h.m.Update(cmd())
	v := h.m.View()
	for _, want := range []string{"MODEL", "SIZE", "TOOLS", "THINKING", "* qwen3:8b", "5.2 GB", "8.2B", "yes"} {
		if !strings.Contains(v, want) {
			t.Errorf("/models output lacks %q:\n%s", want, v)
		}
	}
}

func TestModelCommandSwitchesAndRejectsUnknown(t *testing.T) {
	h := newHarness(t, 120, 24,
		ollamatest.Model{Name: "qwen3:8b"}, ollamatest.Model{Name: "llama3.2:3b"})
	h.typeText("/model nope:1b")
	h.m.Update(h.key(tea.KeyEnter)())
	if !strings.Contains(h.m.View(), "ollama pull nope:1b") || h.sess.Model() != "qwen3:8b" {
		t.Fatalf("unknown model should be refused with a hint:\n%s", h.m.View())
	}
	h.typeText("/model llama3.2:3b")
	h.m.Update(h.key(tea.KeyEnter)())
	h.send("hello")
	if got := h.srv.Requests()[0].Model; got != "llama3.2:3b" {
		t.Fatalf("request went to %q", got)
	}
}

func TestTabCompletesCommands(t *testing.T) {
	h := newHarness(t, 80, 24)
	h.typeText("/mo")
	h.key(tea.KeyTab)
	if got := h.m.input.value(); got != "/mode" {
		t.Fatalf("after tab: %q", got)
	}
	h.m.input.set("/cle")
	h.key(tea.KeyTab)
	if got := h.m.input.value(); got != "/clear " {
		t.Fatalf("after tab: %q", got)
	}
}

// unreachableModel is a UI of width columns whose Ollama (said to be at
// host) does not answer, after its start-up probe.
func unreachableModel(t *testing.T, host string, width int) *Model {
	t.Helper()
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	client := srv.Client()
	srv.Close()
	sess := session.New(session.Options{Client: client, Host: host, Model: "qwen3:8b"})
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sess.Subscribe(), Styles: themes.Default(), FrameInterval: -1})
	m.Update(tea.WindowSizeMsg{Width: width, Height: 24})
	m.Update(m.probe()())
	return m
}

func TestUnreachableOllamaIsOneClearLine(t *testing.T) {
	m := unreachableModel(t, "127.0.0.1:1", 100)
	v := m.View()
	words := strings.Join(strings.Fields(v), " ") // as read, across the wrap
	if !strings.Contains(words, "cannot reach Ollama at 127.0.0.1:1 (connection refused)") || !strings.Contains(words, "ollama serve") {
		t.Fatalf("no clear error:\n%s", v)
	}
}

func TestMouseWheelScrollsAndClearEmpties(t *testing.T) {
	h := newHarness(t, 60, 12)
	h.srv.Script(ollamatest.TextTurn(strings.Repeat("paragraph\n\n", 12) + "the end"))
	h.send("first")
	if !strings.Contains(h.m.View(), "the end") {
		t.Fatalf("newest text not shown:\n%s", h.m.View())
	}
	h.m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	h.m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if strings.Contains(h.m.View(), "the end") || !h.m.chat.scrolledUp() {
		t.Fatalf("wheel up did not scroll:\n%s", h.m.View())
	}
	h.m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	h.m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if !strings.Contains(h.m.View(), "the end") {
		t.Fatalf("wheel down did not come back:\n%s", h.m.View())
	}
	h.command("/clear") // the session clears in a command
	if strings.Contains(h.m.View(), "paragraph") || len(h.sess.History()) != 0 {
		t.Fatalf("/clear left the conversation:\n%s", h.m.View())
	}
	h.send("again")
	if n := len(h.srv.Requests()[1].Messages); n != 1 {
		t.Fatalf("after /clear the model got %d messages, want 1", n)
	}
}

func TestResizeReflows(t *testing.T) {
	h := newHarness(t, 100, 20)
	long := strings.Repeat("reflow ", 30) + "END"
	h.srv.Script(ollamatest.TextTurn(long))
	h.send("go")
	h.m.Update(tea.WindowSizeMsg{Width: 40, Height: 20})
	for i, l := range strings.Split(h.m.View(), "\n") {
		if w := lipgloss.Width(l); w > 40 {
			t.Fatalf("line %d is %d cells wide after resizing to 40:\n%s", i, w, h.m.View())
		}
	}
	if !strings.Contains(h.m.View(), "END") {
		t.Fatalf("reflowed text lost its end:\n%s", h.m.View())
	}
}

func TestNoLineWiderThanTheScreen(t *testing.T) {
	h := newHarness(t, 50, 30)
	wide := "```\n" + strings.Repeat("x", 200) + "\n```\n\n| a | b |\n|---|---|\n| " + strings.Repeat("long ", 30) + " | y |\n\n" + strings.Repeat("ｗｉｄｅ", 40)
	h.srv.Script(ollamatest.TextTurn(wide))
	h.send(strings.Repeat("typed ", 30))
	for i, l := range strings.Split(h.m.View(), "\n") {
		if w := lipgloss.Width(l); w > 50 {
			t.Fatalf("line %d is %d cells wide on a 50-cell screen:\n%s", i, w, h.m.View())
		}
	}
}

func TestThinkingOpensPerMessage(t *testing.T) {
	h := newHarness(t, 80, 40)
	h.srv.Script(
		ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("first private thought"), ollamatest.Tokens("One.")...)},
		ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("second private thought"), ollamatest.Tokens("Two.")...)},
	)
	h.send("a")
	h.send("b")
	v := h.m.View()
	if strings.Contains(v, "private thought") || strings.Count(v, "thought for 3 words") != 2 {
		t.Fatalf("finished thinking should start collapsed:\n%s", v)
	}
	h.key(tea.KeyCtrlT)
	v = h.m.View()
	if !strings.Contains(v, "second private thought") || strings.Contains(v, "first private thought") {
		t.Fatalf("ctrl+t should open the newest reply's thinking only:\n%s", v)
	}
	h.key(tea.KeyCtrlT)
	if strings.Contains(h.m.View(), "private thought") {
		t.Fatalf("a second ctrl+t closes it:\n%s", h.m.View())
	}
	h.command("/clear")
	h.key(tea.KeyCtrlT) // nothing to open: no panic
}
