package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/themes"
)

// popupRowsOf is the rows of the completion popup in a frame: those
// between its box's corners at the bottom of the chat.
func popupRowsOf(v string) []string {
	rows := strings.Split(v, "\n")
	end, start := -1, -1
	for i := len(rows) - 1; i >= 0; i-- {
		r := strings.TrimSpace(rows[i])
		if end < 0 && strings.HasPrefix(r, "╰") {
			end = i
		}
		if end >= 0 && strings.HasPrefix(r, "╭") {
			start = i
			break
		}
	}
	if start < 0 {
		return nil
	}
	return rows[start+1 : end]
}

// selectedRow is the popup's row marked selected, trimmed of its border,
// or "" when none is.
func selectedRow(v string) string {
	for _, r := range popupRowsOf(v) {
		r = strings.Trim(strings.TrimSpace(r), "│ ")
		if strings.HasPrefix(r, "› ") {
			return r
		}
	}
	return ""
}

// selectedText is the selected candidate's text.
func selectedText(v string) string {
	f := strings.Fields(strings.TrimPrefix(selectedRow(v), "› "))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// TestMenuMovesAndEnterTakes: /mo and Tab complete /mode and open the
// menu over /model, /models and /mode; ↓/↑ and Tab/Shift+Tab move the
// selection (round at the ends); Enter puts the selected one in the input
// and sends nothing: no command ran, the model got nothing.
func TestMenuMovesAndEnterTakes(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("/mo")
	h.key(tea.KeyTab)
	if got := h.m.input.value(); got != "/mode" {
		t.Fatalf("after Tab: %q", got)
	}
	v := h.m.View()
	if selectedText(v) != "/model" || !strings.Contains(v, "enter takes") {
		t.Fatalf("Tab with several candidates should open the menu, /model selected:\n%s", v)
	}
	if !strings.Contains(selectedRow(v), "switch model") {
		t.Errorf("the selected row lacks the command's help: %q", selectedRow(v))
	}
	entries := len(h.m.chat.entries)
	for _, step := range []struct {
		key  tea.KeyType
		want string
	}{
		{tea.KeyDown, "/models"}, {tea.KeyDown, "/mode"}, {tea.KeyDown, "/model"}, {tea.KeyUp, "/mode"},
		{tea.KeyTab, "/model"}, {tea.KeyTab, "/models"}, {tea.KeyShiftTab, "/model"}, {tea.KeyDown, "/models"},
	} {
		h.key(step.key)
		if got := selectedText(h.m.View()); got != step.want {
			t.Fatalf("after %v: %q selected, want %q:\n%s", step.key, got, step.want, h.m.View())
		}
		if got := h.m.input.value(); got != "/mode" {
			t.Fatalf("moving changed the input to %q", got)
		}
	}
	if cmd := h.key(tea.KeyEnter); cmd != nil {
		h.m.Update(cmd())
	}
	if got := h.m.input.value(); got != "/models " {
		t.Fatalf("Enter should take /models into the input: %q", got)
	}
	if len(h.m.chat.entries) != entries || len(h.srv.Requests()) != 0 {
		t.Errorf("Enter on the menu sent something:\n%s", allText(h.m))
	}
	if v := h.m.View(); strings.Contains(v, "enter takes") || selectedRow(v) != "" {
		t.Errorf("the menu is still open after Enter:\n%s", v)
	}
	// Closed, ↓ and Enter are the input's again: Enter runs the command.
	h.key(tea.KeyDown)
	if cmd := h.key(tea.KeyEnter); cmd != nil {
		h.m.Update(cmd())
	}
	if h.m.input.value() != "" || !strings.Contains(allText(h.m), "qwen3:8b") {
		t.Errorf("Enter after the menu closed should run /models: input %q\n%s", h.m.input.value(), allText(h.m))
	}
}

// TestMenuEscLeavesInput: Esc closes the menu and hides the popup; the
// input stays as it was, and Esc stops nothing else. Typing shows the
// popup again; after Esc, ↓ is the input's.
func TestMenuEscLeavesInput(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.press(runes("/mo"))
	fh.press(tea.KeyMsg{Type: tea.KeyTab})
	fh.press(tea.KeyMsg{Type: tea.KeyDown})
	fh.press(tea.KeyMsg{Type: tea.KeyEsc})
	v := fh.m.View()
	if got := fh.m.input.value(); got != "/mode" {
		t.Errorf("Esc changed the input to %q", got)
	}
	if fh.b.cancels != 0 {
		t.Errorf("Esc on the menu also cancelled (%d)", fh.b.cancels)
	}
	if popupRowsOf(v) != nil {
		t.Errorf("the popup is still shown after Esc:\n%s", v)
	}
	fh.press(tea.KeyMsg{Type: tea.KeyDown})
	if v := fh.m.View(); popupRowsOf(v) != nil || fh.m.input.value() != "/mode" {
		t.Errorf("↓ after Esc reopened the menu or changed the input %q:\n%s", fh.m.input.value(), v)
	}
	fh.press(tea.KeyMsg{Type: tea.KeyBackspace})
	v = fh.m.View()
	if !strings.Contains(v, "/models") || selectedRow(v) != "" || !strings.Contains(v, "tab completes") {
		t.Errorf("typing should show the popup again, closed:\n%s", v)
	}
}

// TestMenuFiltersAsTyped: with the menu open over every command, typing
// narrows it to those that still fit, the menu open; when none fits it
// closes, and Enter sends again.
func TestMenuFiltersAsTyped(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("/")
	h.key(tea.KeyTab)
	h.key(tea.KeyDown)
	if got := selectedText(h.m.View()); got != "/model" {
		t.Fatalf("↓ on the menu over every command: %q selected", got)
	}
	h.typeText("c")
	v := h.m.View()
	if selectedText(v) != "/connect" || strings.Contains(v, "/model") || !strings.Contains(v, "/close") {
		t.Fatalf("typing c should leave the /c commands, the first selected:\n%s", v)
	}
	h.key(tea.KeyDown)
	h.typeText("l")
	if got := selectedText(h.m.View()); got != "/close" {
		t.Errorf("/cl keeps /close selected: %q\n%s", got, h.m.View())
	}
	h.key(tea.KeyEnter)
	if got := h.m.input.value(); got != "/close " {
		t.Fatalf("Enter after filtering: %q", got)
	}
	h.m.input.reset()
	h.typeText("/")
	h.key(tea.KeyTab)
	h.typeText("zz")
	if v := h.m.View(); popupRowsOf(v) != nil {
		t.Errorf("no command fits /zz, yet the menu shows:\n%s", v)
	}
	if cmd := h.key(tea.KeyEnter); cmd != nil {
		h.m.Update(cmd())
	}
	if !strings.Contains(allText(h.m), "/zz") {
		t.Errorf("Enter with the menu closed should run /zz (unknown):\n%s", allText(h.m))
	}
}

// TestMenuScrolls: with more candidates than rows, the menu says how
// many more there are, and scrolls to keep the selection in view.
func TestMenuScrolls(t *testing.T) {
	h := newHarness(t, 100, 30)
	h.typeText("/")
	h.key(tea.KeyTab)
	n := len(commands)
	if v := h.m.View(); !strings.Contains(v, fmt.Sprintf("… %d more", n-8)) {
		t.Fatalf("no more marker for %d commands:\n%s", n, v)
	}
	for range 9 {
		h.key(tea.KeyDown)
	}
	v := h.m.View()
	if got, want := selectedText(v), "/"+commands[9].name; got != want {
		t.Fatalf("after 9 ↓: %q selected, want %q:\n%s", got, want, v)
	}
	if !strings.Contains(v, fmt.Sprintf("… 2 above, %d more", n-10)) || strings.Contains(strings.Join(popupRowsOf(v), "\n"), "/help") {
		t.Errorf("the menu did not scroll:\n%s", v)
	}
	for range 10 { // up past the first, round to the last
		h.key(tea.KeyUp)
	}
	if got := selectedText(h.m.View()); got != "/"+commands[n-1].name {
		t.Errorf("↑ from the first: %q selected:\n%s", got, h.m.View())
	}
	if len(popupRowsOf(h.m.View())) != 10 {
		t.Errorf("the menu changed its height:\n%s", h.m.View())
	}
}

// TestMenuPromptValuesArrive: the values of a prompt's argument come from
// the server (completion/complete) after Tab; the menu opens over them
// when they arrive, and Enter takes one.
func TestMenuPromptValuesArrive(t *testing.T) {
	h := promptHarness(t, 100, 40, kitConfig(mcptestutil.PromptServer()), 4)
	h.typeText("/kit:team department=")
	if v := h.m.View(); strings.Contains(v, "department=Engineering") {
		t.Fatalf("values before they were asked for:\n%s", v)
	}
	h.tab()
	v := h.m.View()
	if selectedText(v) == "" || !strings.Contains(v, "department=Engineering") || !strings.Contains(v, "department=Sales") {
		t.Fatalf("the menu did not open over the server's values:\n%s", v)
	}
	for i := 0; !strings.HasSuffix(selectedRow(h.m.View()), "department=Sales"); i++ {
		if i == 3 {
			t.Fatalf("↓ never selects Sales:\n%s", h.m.View())
		}
		h.key(tea.KeyDown)
	}
	h.key(tea.KeyEnter)
	h.wantInput("/kit:team department=Sales ")
	if len(h.srv.Requests()) != 0 {
		t.Error("Enter on the menu ran the prompt")
	}
}

// TestMenuBoxes: a box that comes up over the open menu hides it and its
// keys: with the box waiting, ↓ does not move the menu and Tab takes the
// box; once the box is answered, the menu is closed (the popup, shown
// again, is not a menu until ↓ moves into it).
func TestMenuBoxes(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	fh.press(runes("/mo"))
	fh.press(tea.KeyMsg{Type: tea.KeyTab})
	if got := selectedText(fh.m.View()); got != "/model" {
		t.Fatalf("Tab did not open the menu: %q selected\n%s", got, fh.m.View())
	}
	fh.feed(askEvents()...)
	if fh.m.modal.box.focused() {
		t.Fatal("the box took the keys while the person typed")
	}
	if v := fh.m.View(); strings.Contains(v, "enter takes") || strings.Contains(v, "/models") {
		t.Fatalf("the menu shows over the box:\n%s", v)
	}
	fh.press(tea.KeyMsg{Type: tea.KeyDown})
	fh.clock = fh.clock.Add(typingPause)
	fh.press(tea.KeyMsg{Type: tea.KeyTab})
	if !fh.m.modal.box.focused() || fh.m.input.value() != "/mode" {
		t.Fatalf("Tab with a box waiting: focused %v, input %q", fh.m.modal.box.focused(), fh.m.input.value())
	}
	pastGuard(fh.m)
	fh.press(runes("y"))
	if fh.m.modal != nil || len(fh.b.asks) != 1 {
		t.Fatalf("y did not answer the box: %v", fh.b.asks)
	}
	if v := fh.m.View(); selectedRow(v) != "" || fh.m.input.value() != "/mode" {
		t.Errorf("after the box the menu is open again, or the input changed %q:\n%s", fh.m.input.value(), v)
	}
	fh.press(tea.KeyMsg{Type: tea.KeyDown}) // the popup shows: ↓ moves into it, the input unchanged
	if v := fh.m.View(); selectedText(v) != "/model" || fh.m.input.value() != "/mode" {
		t.Errorf("↓ over the popup: %q selected, input %q:\n%s", selectedText(v), fh.m.input.value(), v)
	}
}

// TestMenuHostileCandidates: what a server names its resources (escapes,
// long and many) reaches the menu inert: no control sequence on screen,
// none in the input after taking one, no row wider than the screen, the
// count capped, and a URI too long to type not offered.
func TestMenuHostileCandidates(t *testing.T) {
	plant := mcptestutil.Plant("PLANTED-WORD")
	srv := mcpserver.NewMCPServer("flood", "1.0", mcpserver.WithResourceCapabilities(false, false))
	read := func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) { return nil, nil }
	for i := range 600 {
		srv.AddResource(mcp.NewResource(fmt.Sprintf("x://%03d/%s", i, plant), "name "+plant+strings.Repeat("n", 300),
			mcp.WithResourceDescription("d "+plant)), read)
	}
	srv.AddResource(mcp.NewResource("x://"+strings.Repeat("L", 5000), "long"), read)
	h := resHarness(t, 100, 30, session.Options{Servers: []session.ServerConfig{
		{Name: "flood", Transport: "inprocess", InProcess: srv}}})
	h.typeText("@flood:")
	h.tab()
	items := h.m.candidates(h.m.input.value())
	if len(items) != 500 {
		t.Errorf("%d candidates offered, want at most 500", len(items))
	}
	for _, c := range items {
		if len(c.text) > 2048 {
			t.Errorf("a %d-byte candidate is offered", len(c.text))
		}
	}
	h.key(tea.KeyDown)
	v := h.m.View()
	if selectedText(v) == "" {
		t.Fatalf("the menu is not open:\n%s", v)
	}
	if bad := mcptestutil.FirstForbidden(v); bad != "" {
		t.Errorf("the menu holds %q:\n%s", bad, v)
	}
	for i, r := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(r); w > 100 {
			t.Errorf("row %d is %d wide", i, w)
		}
	}
	h.key(tea.KeyEnter)
	if in := h.m.input.value(); mcptestutil.FirstForbidden(in) != "" || !strings.HasPrefix(in, "@flood:x://001/") {
		t.Errorf("the input after taking: %q", in)
	}
}

// TestGoldenCompletionMenu draws the open menu at 80×24 and 120×40: over
// the commands (/ and Tab, then ↓) and over a server's resources (@res:
// and Tab, the listing asked for and arrived).
func TestGoldenCompletionMenu(t *testing.T) {
	for _, sz := range screenSizes {
		w, hh := sz.w, sz.h
		t.Run(fmt.Sprintf("commands_%dx%d", w, hh), func(t *testing.T) {
			s := screenModel(t, w, hh, themes.Default(), "files", "notes")
			s.feed(serverEvents()...)
			s.typeText("/")
			s.key(tea.KeyTab)
			s.key(tea.KeyDown)
			if selectedText(s.m.View()) != "/model" {
				t.Fatalf("the menu is not open on /model:\n%s", s.m.View())
			}
			golden.RequireEqual(t, []byte(s.m.View()))
		})
		t.Run(fmt.Sprintf("resources_%dx%d", w, hh), func(t *testing.T) {
			s := resHarness(t, w, hh, session.Options{Servers: []session.ServerConfig{resServer("")}})
			s.typeText("see @res:")
			s.tab()
			if got := s.m.input.value(); got != "see @res:test://" {
				t.Fatalf("after Tab: %q", got)
			}
			if selectedText(s.m.View()) == "" {
				t.Fatalf("the menu is not open:\n%s", s.m.View())
			}
			golden.RequireEqual(t, []byte(s.m.View()))
		})
	}
}

// TestMenuResourceValuesArrive: Tab on @SERVER:URI asks the server for its
// listing, then for the template's values (completion/complete); the menu
// opens over the resources and values once both arrived, and Enter takes
// the selected one, the message not sent.
func TestMenuResourceValuesArrive(t *testing.T) {
	h := resHarness(t, 100, 30, session.Options{Servers: []session.ServerConfig{resServer("")}})
	h.typeText("read @res:test://notes/")
	h.tab()
	v := h.m.View()
	for _, want := range []string{"@res:test://notes/readme.txt", "@res:test://notes/alpha", "@res:test://notes/beta"} {
		if !strings.Contains(strings.Join(popupRowsOf(v), "\n"), want) {
			t.Errorf("the menu lacks %q:\n%s", want, v)
		}
	}
	if selectedText(v) == "" {
		t.Fatalf("the menu did not open when the values arrived:\n%s", v)
	}
	for i := 0; selectedText(h.m.View()) != "@res:test://notes/alpine"; i++ {
		if i == 6 {
			t.Fatalf("↓ never selects alpine:\n%s", h.m.View())
		}
		h.key(tea.KeyDown)
	}
	h.pump(h.key(tea.KeyEnter))
	if got := h.m.input.value(); got != "read @res:test://notes/alpine " {
		t.Errorf("Enter took %q", got)
	}
	if len(h.srv.Requests()) != 0 || h.m.attaching != 0 {
		t.Error("Enter on the menu sent the message")
	}
}
