package ui

import (
	"regexp"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// opened records what the URL opener and the clipboard were given.
type opened struct {
	mu     sync.Mutex
	urls   []string
	copies []string
}

func (o *opened) open(u string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.urls = append(o.urls, u)
	return nil
}
func (o *opened) copy(s string) { o.mu.Lock(); defer o.mu.Unlock(); o.copies = append(o.copies, s) }

// formHarness is a UI over a real session whose desk server (in process,
// auto mode) asks for input when the model calls it.
func formHarness(t *testing.T, mark, url string) (*harness, *opened) {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef", Policy: permissions.Policy{Mode: permissions.Auto}, Servers: []session.ServerConfig{
			{Name: "desk", Transport: "inprocess", InProcess: mcptestutil.FormServer(mark, url)}}})
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	o := &opened{}
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1, OpenURL: o.open, Clipboard: o.copy})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	sess.StartServers()
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.until(func() bool { c, _, _ := m.serverCounts(); return c == 1 })
	return h, o
}

// ask has the model call tool; it returns once the request is on screen.
func (h *harness) ask(tool string) {
	h.t.Helper()
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_f", tool)}}, ollamatest.TextTurn("Thanks."))
	h.typeText("go on")
	h.key(tea.KeyEnter)
	h.until(func() bool { return len(h.m.forms) > 0 })
}

// result finishes the turn and returns the tool card's text.
func (h *harness) result() string {
	h.t.Helper()
	h.untilTurnDone()
	h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlO}) // expand the card
	defer h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
	return cardRows.ReplaceAllString(entriesWith(h.m, "desk__"), "")
}

// cardRows are the breaks between a card's wrapped rows.
var cardRows = regexp.MustCompile(`\n\s*│ `)

// TestFormKeysEndToEnd drives the form with keys through a real session:
// a key typed just after it opens goes to the chat; a wrong email and a short name
// are shown next to their fields and the submit is refused; once fixed,
// enter on the last field sends it, the password never on screen. Then a
// form declined with ctrl+d and one cancelled with Esc.
func TestFormKeysEndToEnd(t *testing.T) {
	h, _ := formHarness(t, "", "https://example.com")
	h.ask("desk__fill_form")
	h.typeText("x") // typed as the form opened, just after "go on": the chat's
	if v := h.m.View(); !strings.Contains(v, "desk asks you to fill in a form") || !strings.Contains(v, "then tab to answer") ||
		h.m.forms[0].vals[0].text != "" || h.m.input.value() != "x" {
		t.Fatalf("the form, waiting, input %q:\n%s", h.m.input.value(), v)
	}
	h.key(tea.KeyBackspace)
	pastGuard(h.m)
	h.typeText("ada@") // email, the first field (required ones come first)
	h.key(tea.KeyTab)
	h.typeText("A")
	h.key(tea.KeyCtrlS)
	v := h.m.View()
	if len(h.m.forms) == 0 || !strings.Contains(v, "✗ not an email address") || !strings.Contains(v, "✗ at least 2 characters") {
		t.Fatalf("a wrong form was not refused with the problems shown:\n%s", v)
	}
	h.typeText("example.com") // the focus went back to the first wrong field
	if v := h.m.View(); strings.Contains(v, "not an email address") {
		t.Fatalf("the fixed email still shows its problem:\n%s", v)
	}
	h.key(tea.KeyTab)
	h.typeText("da")
	for range 10 { // to the PIN
		h.key(tea.KeyTab)
	}
	h.typeText("s3cr3t-pin-4711")
	if v := h.m.View(); strings.Contains(v, "s3cr3t") || !strings.Contains(v, "•••••••••••••••") {
		t.Fatalf("the password is shown:\n%s", v)
	}
	h.key(tea.KeyTab)
	h.key(tea.KeyTab) // tools: saw is ticked by default
	h.key(tea.KeyRight)
	h.key(tea.KeySpace) // and drill
	h.key(tea.KeyEnter) // on the last field: send
	if len(h.m.forms) != 0 {
		t.Fatalf("the form did not close:\n%s", h.m.View())
	}
	card := h.result()
	for _, want := range []string{`"action":"accept"`, `"email":"ada@example.com"`, `"name":"Ada"`, `"tools":["saw","drill"]`,
		`"pin":"«your password for desk's form`, `"age":30`} {
		if !strings.Contains(card, want) {
			t.Errorf("the result lacks %s:\n%s", want, card)
		}
	}
	if all := allText(h.m); strings.Contains(all, "s3cr3t-pin-4711") || !strings.Contains(all, "desk's form: sent") {
		t.Errorf("the chat:\n%s", all)
	}

	h.ask("desk__fill_form")
	pastGuard(h.m)
	h.key(tea.KeyCtrlD)
	if card := h.result(); !strings.Contains(card, `{"action":"decline"}`) || !strings.Contains(allText(h.m), "desk asked for a form: you declined") {
		t.Errorf("declined:\n%s", card)
	}
	h.ask("desk__fill_form")
	pastGuard(h.m)
	h.key(tea.KeyEsc)
	if card := h.result(); !strings.Contains(card, `{"action":"cancel"}`) {
		t.Errorf("cancelled:\n%s", card)
	}
}

// TestURLRequestKeys: the link is opened only by o (then accepted), copied
// by c (then accepted), declined by n; a burst of text does nothing.
func TestURLRequestKeys(t *testing.T) {
	const link = "https://sign.example.com/device?code=42"
	h, o := formHarness(t, "", link)
	h.ask("desk__open_link")
	pastGuard(h.m)
	v := h.m.View()
	for _, want := range []string{"desk asks you to open a link", "Sign in to go on", "domain  sign.example.com", link, "never opens it on its own"} {
		if !strings.Contains(v, want) {
			t.Errorf("the URL request lacks %q:\n%s", want, v)
		}
	}
	h.typeText("ocn")
	if len(h.m.forms) == 0 || len(o.urls)+len(o.copies) != 0 {
		t.Fatal("a burst of text answered the request")
	}
	h.typeText("o")
	if card := h.result(); len(o.urls) != 1 || o.urls[0] != link || !strings.Contains(card, `{"action":"accept"}`) {
		t.Fatalf("o: opened %v, result:\n%s", o.urls, card)
	}
	h.ask("desk__open_link")
	pastGuard(h.m)
	_, cmd := h.m.Update(runes("c"))
	for _, msg := range runCmd(cmd) { // the copy, then its notice
		h.m.Update(msg)
	}
	if card := h.result(); !strings.Contains(card, `{"action":"accept"}`) || len(o.copies) != 1 || o.copies[0] != link ||
		!strings.Contains(allText(h.m), "copied the link to sign.example.com") {
		t.Fatalf("c: copied %v, result:\n%s", o.copies, card)
	}
	h.ask("desk__open_link")
	pastGuard(h.m)
	h.typeText("n")
	if card := h.result(); !strings.Contains(card, `{"action":"decline"}`) || len(o.urls) != 1 {
		t.Fatalf("n: opened %v, result:\n%s", o.urls, card)
	}
}

// TestHostileFormOnScreen: escapes a server plants in its message, field
// titles, descriptions, option names and URL reach the screen inert.
func TestHostileFormOnScreen(t *testing.T) {
	plant := mcptestutil.Plant("PLANTED-WORD")
	h, _ := formHarness(t, plant, "https://example.com/a")
	h.ask("desk__fill_form")
	pastGuard(h.m)
	for range 14 {
		v := h.m.View()
		if bad := mcptestutil.FirstForbidden(v); bad != "" {
			t.Fatalf("%q on screen:\n%s", bad, v)
		}
		if !strings.Contains(v, "PLANTED") {
			t.Fatalf("the plant is not drawn:\n%s", v)
		}
		h.key(tea.KeyTab)
	}
	h.key(tea.KeyEsc)
	h.result()
	h.ask("desk__open_link")
	pastGuard(h.m)
	if v := h.m.View(); mcptestutil.FirstForbidden(v) != "" || !strings.Contains(v, "Sign in to go on") {
		t.Fatalf("the URL request:\n%s", v)
	}
}

// TestFormWithdrawn: when the server's request ends first (here the turn
// is cancelled, ending the call), the form closes and the chat says so.
func TestFormWithdrawn(t *testing.T) {
	h, _ := formHarness(t, "", "https://example.com")
	h.ask("desk__fill_form")
	h.sess.Cancel()
	h.untilTurnDone()
	if len(h.m.forms) != 0 || !strings.Contains(allText(h.m), "desk withdrew its request for a form") {
		t.Fatalf("the form stays, or no notice:\n%s", h.m.View())
	}
}

// TestURLRequestOpensWhatItShows: a link with a Cyrillic letter and bidi
// controls in its query is shown in ASCII (percent-encoded), and o opens
// and c copies exactly what is shown.
func TestURLRequestOpensWhatItShows(t *testing.T) {
	for _, c := range []struct{ link, shown string }{
		{"https://sign.example.com/device?name=\u0430dmin", "https://sign.example.com/device?name=%D0%B0dmin"},
		{"https://sign.example.com/device?code=42\u202egnp.exe&x=\u2066y\u2069", "https://sign.example.com/device?code=42%E2%80%AEgnp.exe&x=%E2%81%A6y%E2%81%A9"},
	} {
		h, o := formHarness(t, "", c.link)
		h.ask("desk__open_link")
		pastGuard(h.m)
		v := h.m.View()
		flat := strings.Join(strings.Fields(strings.NewReplacer("│", "", "url", "").Replace(v)), "")
		if !strings.Contains(flat, c.shown) {
			t.Errorf("%q is not shown as %q:\n%s", c.link, c.shown, v)
		}
		h.typeText("o")
		if h.result(); len(o.urls) != 1 || o.urls[0] != c.shown {
			t.Errorf("o opened %q, want what is shown, %q", o.urls, c.shown)
		}
		h.ask("desk__open_link")
		pastGuard(h.m)
		_, cmd := h.m.Update(runes("c"))
		runCmd(cmd)
		if h.result(); len(o.copies) != 1 || o.copies[0] != c.shown {
			t.Errorf("c copied %q, want what is shown, %q", o.copies, c.shown)
		}
	}
}
