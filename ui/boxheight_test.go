package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"latch/session"
)

// TestAskBoxFitsAShortScreen: on a narrow, short screen the permission
// box's key line and the hint under the arguments wrap onto more rows;
// the box gives the arguments fewer rows so that it stays whole over the
// chat, its bottom border and its keys on screen. At 60×20 and 44×30 its
// bottom was cut off. A screen shorter still, 50×18 or 40×16, has no room
// for the box's fixed rows even with one row of arguments: there the box
// is compact (TestGoldenAskBoxCompact), and whole.
func TestAskBoxFitsAShortScreen(t *testing.T) {
	for _, size := range [][2]int{{60, 20}, {80, 24}, {44, 30}, {120, 40}, {50, 18}, {40, 16}} {
		m := argsBoxModel(t, size[0], size[1])
		askCall(m, "", "write_file", map[string]any{
			"path": "/home/me/notes.txt", "content": strings.Repeat("long argument text ", 40),
			"mode": "overwrite", "backup": true, "encoding": "utf-8", "owner": "me"})
		v := m.View()
		rows := strings.Split(v, "\n")
		top, bottom := -1, -1
		for i, r := range rows {
			if strings.Contains(r, "╭") || strings.Contains(r, "┌") {
				top = i
			}
			if strings.Contains(r, "╰") || strings.Contains(r, "└") {
				bottom = i
			}
		}
		if top < 0 || bottom < top {
			t.Errorf("at %dx%d the box is not whole (top row %d, bottom row %d):\n%s", size[0], size[1], top, bottom, v)
			continue
		}
		box := strings.Join(rows[top:bottom+1], "\n")
		for _, want := range []string{"y run once", "deny and"} {
			if !strings.Contains(box, want) {
				t.Errorf("at %dx%d the box lacks %q:\n%s", size[0], size[1], want, v)
			}
		}
	}
}

// TestGoldenAskBoxCompact: at 50×18 the permission box's fixed rows were
// taller than the chat area: its last key line and its bottom border were
// cut off. Now it is compact: the tool, every key and the border whole;
// the hints, a client's name and the arguments one row each, with a row
// saying more is hidden and how to see it (↑/↓, f). What the client and
// the server chose (an escape, a bidi override, a planted token-looking
// value) reaches the screen inert. Scrolling shows the next key.
func TestGoldenAskBoxCompact(t *testing.T) {
	for _, tc := range []struct {
		name, client string
		w, h         int
	}{{"model50x18", "", 50, 18}, {"client50x18", "claude\x1b]52;c;SGVsbG8=\x07\u202e ghp_PLANTEDtoken0123456789abcdef", 50, 18},
		{"client40x16", "claude-code", 40, 16}} {
		t.Run(tc.name, func(t *testing.T) {
			m := argsBoxModel(t, tc.w, tc.h)
			args := boxArgs()
			args["token"] = "ghp_PLANTEDtoken0123456789abcdef\x1b[2J"
			hd := session.Header{Time: fixedNow}
			m.Update(eventsMsg{events: []session.Event{
				&session.ToolCallEvent{Header: hd, CallID: "call_1", Server: "fs", Tool: "fs__move_file", Arguments: args, Destructive: true, Client: tc.client},
				&session.PermissionEvent{Header: hd, CallID: "call_1", Tool: "fs__move_file", Decision: "asked", By: "policy", Mode: "ask", Rule: "--ask 0"},
			}})
			// While keys are ignored for a moment, a row more: whole too.
			if v := m.View(); !strings.Contains(wholeBox(t, v), "(keys ignored for a moment)") {
				t.Errorf("the box's note is not shown:\n%s", v)
			}
			pastGuard(m)
			v := m.View()
			box := wholeBox(t, v)
			keys := "esc deny and stop"
			if tc.client != "" {
				keys = "esc decide later"
			}
			for _, want := range []string{"tool fs__move_file", "y run once", "n deny", "A allow always (saved)", keys,
				"args 2/", "more hidden: ↑/↓, f"} {
				if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(box, "│", "")), " "), want) {
					t.Errorf("the box lacks %q:\n%s", want, v)
				}
			}
			if strings.ContainsAny(v, "\x1b\x07\u202e") {
				t.Errorf("a control reached the screen: %q", v)
			}
			golden.RequireEqual(t, []byte(v))
			m.Update(tea.KeyMsg{Type: tea.KeyDown})
			if v := m.View(); !strings.Contains(wholeBox(t, v), "args 3/") {
				t.Errorf("↓ did not scroll the compact box's arguments:\n%s", v)
			}
			// The save step (A): its choices and keys whole, no row of
			// arguments (↑/↓ choose here; the row said they scrolled),
			// nor hints. Its bottom border was cut off.
			if tc.w < 50 {
				return // at 40×16 the save step's own rows are taller than the chat area
			}
			m.Update(runes("A"))
			pastGuard(m)
			v = m.View()
			flat := strings.Join(strings.Fields(strings.ReplaceAll(wholeBox(t, v), "│", "")), " ")
			for _, want := range []string{"Save, for every later call like this one", "enter save and run it · esc back",
				"tool fs__move_file"} {
				if !strings.Contains(flat, want) {
					t.Errorf("the save step lacks %q:\n%s", want, v)
				}
			}
			if strings.Contains(flat, "more hidden: ↑/↓") {
				t.Errorf("the save step says ↑/↓ scroll the arguments, where they choose:\n%s", v)
			}
		})
	}
}

// wholeBox is the box's rows in v, from its top border to its bottom
// one; it fails the test when either is missing.
func wholeBox(t *testing.T, v string) string {
	t.Helper()
	rows := strings.Split(v, "\n")
	top, bottom := -1, -1
	for i, r := range rows {
		if strings.Contains(r, "╭") && top < 0 {
			top = i
		}
		if strings.Contains(r, "╰") {
			bottom = i
		}
	}
	if top < 0 || bottom < top {
		t.Fatalf("the box is not whole (top row %d, bottom row %d):\n%s", top, bottom, v)
	}
	return strings.Join(rows[top:bottom+1], "\n")
}
