package ui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// argsBoxModel is a screen w × h over a session in ask mode whose rules
// are rules (compact form, global), with the fs server named.
func argsBoxModel(t *testing.T, w, h int, rules ...string) *Model {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	var compiled []permissions.Rule
	for i, text := range rules {
		spec, err := permissions.ParseCompact(text, "ask", "--ask")
		if err != nil {
			t.Fatal(err)
		}
		r, err := permissions.CompileRule(spec, "", fmt.Sprintf("--ask %d", i), "/home/me")
		if err != nil {
			t.Fatal(err)
		}
		compiled = append(compiled, r)
	}
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef",
		Policy:  permissions.Policy{Mode: permissions.Ask, Rules: compiled, Servers: []string{"fs"}, Home: "/home/me"},
		Servers: []session.ServerConfig{{Name: "fs", Command: "/nonexistent/never-started"}}})
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow },
		DarkBackground: true, Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.Ascii})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// askCall opens the box of a call of fs's tool with args, asked.
func askCall(m *Model, client, tool string, args map[string]any) {
	hd := session.Header{Time: fixedNow}
	m.Update(eventsMsg{events: []session.Event{
		&session.ToolCallEvent{Header: hd, CallID: "call_1", Server: "fs", Tool: "fs__" + tool, Arguments: args, Destructive: true, Client: client},
		&session.PermissionEvent{Header: hd, CallID: "call_1", Tool: "fs__" + tool, Decision: "asked", By: "policy", Mode: "ask", Rule: "--ask 0"},
	}})
	pastGuard(m)
}

// boxArgs are the arguments of a hostile move_file: a long text first,
// a comment a rule looks at, a key and a value with an escape, a bidi
// override and a planted key, nested values, and the two paths, one with
// a zero-width space.
func boxArgs() map[string]any {
	return map[string]any{
		"a_text":               strings.Repeat("lorem ipsum ", 150) + "MIDDLE" + strings.Repeat(" dolor sit", 150),
		"comment":              "moving it " + strings.Repeat("because ", 30) + "it is time",
		"evil\x1b[2J\u202ekey": "v\"\n  \"destination\": \"~/proj/b\"",
		"options":              map[string]any{"deep": map[string]any{"list": []any{"x", map[string]any{"k": float64(1)}}}, "overwrite": true},
		"source":               "~/pro\u200bj/a",
		"destination":          "~/.ssh/authorized_keys",
	}
}

// TestGoldenArgsBox draws the permission box of a hostile move_file at
// 80 columns (the model's call) and 120 (a client's, through the gateway
// beside the chat, latch --serve): every key, the long text elided in its middle with
// the count left out, the comment an ask rule looks at whole, the paths
// whole (the zero-width space written \u200b), the escape, bidi override
// (made inert as the chat receives them) and planted key inert, nested
// values one a line; then, after f, every value whole, scrolled.
func TestGoldenArgsBox(t *testing.T) {
	for _, size := range [][2]int{{80, 40}, {120, 40}} {
		client := ""
		if size[0] == 120 {
			client = "claude-code"
		}
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := argsBoxModel(t, size[0], size[1], "fs__move_file(comment=re:.*)")
			askCall(m, client, "move_file", boxArgs())
			v := m.View()
			for _, want := range []string{`"a_text": "lorem ipsum `, `characters)…"`, `"comment": "moving it because`, `it is time",`,
				`"destination": "~/.ssh/authorized_keys",`, `"evil␛[2J�key": "v\"\n  \"destination\": \"~/proj/b\"",`,
				`"source": "~/pro\u200bj/a"`, `"overwrite": true`, "f every value whole (1 elided)"} {
				if !strings.Contains(v, want) {
					t.Errorf("the box does not show %q:\n%s", want, v)
				}
			}
			if strings.Contains(v, "MIDDLE") || strings.Contains(v, "\x1b[2J") || strings.Contains(v, "\u202e") {
				t.Errorf("the box shows what it should elide or escape:\n%s", v)
			}
			golden.RequireEqual(t, []byte(v))
			m.Update(runes("f"))
			full := m.View()
			if m.modal == nil || !strings.Contains(full, "f short view") || !strings.Contains(full, "↑/↓ scroll") {
				t.Fatalf("f did not show the whole call, scrollable:\n%s", full)
			}
			t.Run("full", func(t *testing.T) { golden.RequireEqual(t, []byte(full)) })
		})
	}
}

// In the box f shows every value whole and back, even in the guard's
// moment (it decides nothing), and answers nothing; ↓ then scrolls the
// whole call to its end, where the middle of the long text and the keys
// after it are.
func TestArgsBoxFullKey(t *testing.T) {
	m := argsBoxModel(t, 80, 24)
	askCall(m, "", "move_file", boxArgs())
	md := m.modal
	md.box.took = m.now() // the guard's moment again
	m.Update(runes("f"))
	if m.modal != md || !md.full {
		t.Fatalf("f in the guard's moment: box %v, full %v", m.modal != nil, md.full)
	}
	seen := ""
	for range 200 {
		seen += m.View()
		m.Update(tea.KeyMsg{Type: tea.KeyDown})
	}
	for _, want := range []string{"MIDDLE", `"source": "~/pro\u200bj/a"`, `"overwrite": true`} {
		if !strings.Contains(seen, want) {
			t.Errorf("scrolling the whole call never shows %q", want)
		}
	}
	m.Update(runes("f"))
	if md.full || m.modal != md || !strings.Contains(m.View(), "f every value whole") {
		t.Errorf("f again did not go back to the short view:\n%s", m.View())
	}
	if len(m.asks.(*session.Session).Approvals()) != 0 || m.modal == nil {
		t.Errorf("f answered the call")
	}
}

// A key of 10,000 characters and 5,000 keys neither hide the other keys
// nor make the box taller than the screen: the long key is elided with
// its count, and the box says how many lines there are and scrolls to the
// last key.
func TestArgsBoxFloodOfKeys(t *testing.T) {
	m := argsBoxModel(t, 80, 24)
	args := map[string]any{strings.Repeat("k", 10_000): "v", "zz_last": "the end"}
	for i := range 5_000 {
		args[fmt.Sprintf("key%05d", i)] = i
	}
	askCall(m, "", "write_file", args)
	v := m.View()
	if n := strings.Count(v, "\n") + 1; n > 24 {
		t.Fatalf("the box makes the screen %d rows high, over 24", n)
	}
	if !strings.Contains(v, "lines 1–7 of 5,006 (↑/↓ scroll") || !strings.Contains(v, `"key00000": 0,`) {
		t.Errorf("the box does not count its lines:\n%s", v)
	}
	for range 600 {
		m.Update(tea.KeyMsg{Type: tea.KeyPgDown})
	}
	v = m.View()
	for _, want := range []string{`"key04999": 4999,`, `"…(9,880`, `": "v",`, `"zz_last": "the end"`, "of 5,006"} {
		if !strings.Contains(v, want) {
			t.Errorf("scrolled to the end, the box does not show %q:\n%s", want, v)
		}
	}
}

// TestArgsBoxSaveStepSaysWhatArrowsDo: in the full-size save step (A),
// where ↑/↓ choose what to save, the line under the arguments that do
// not all show says so, and that esc goes back to scroll them (it said
// "↑/↓ scroll"); ↓ chooses, the arguments stay where they were.
func TestArgsBoxSaveStepSaysWhatArrowsDo(t *testing.T) {
	m := argsBoxModel(t, 100, 50)
	args := map[string]any{}
	for i := range 60 {
		args[fmt.Sprintf("key%02d", i)] = i
	}
	askCall(m, "", "write_file", args)
	if v := m.View(); !strings.Contains(v, "(↑/↓ scroll)") {
		t.Fatalf("the box does not say ↑/↓ scroll its arguments:\n%s", v)
	}
	m.Update(runes("A"))
	pastGuard(m)
	v := m.View()
	if !strings.Contains(v, "Save, for every later call like this one") {
		t.Fatalf("A did not open the save step:\n%s", v)
	}
	if !strings.Contains(v, "(↑/↓ choose what to save · esc back to scroll them)") || strings.Contains(v, "↑/↓ scroll") {
		t.Errorf("the save step's line under the arguments does not say what ↑/↓ do there:\n%s", v)
	}
	first := m.modal.scroll
	m.Update(tea.KeyMsg{Type: tea.KeyDown})
	if m.modal == nil || m.modal.save == nil || m.modal.scroll != first {
		t.Errorf("↓ in the save step scrolled the arguments or left the step")
	}
}
