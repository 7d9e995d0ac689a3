package ui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/eventtest"
	"latch/themes"
)

// TestEveryFieldOnScreen feeds the scenario with a plant in one field of
// one event type at a time, and draws it: with the y/n modal open, with
// the parked approval's modal, after the turn, with thinking and results
// expanded. No frame may hold a control character from the plant. (The
// screen is drawn without colour, so any ESC would be the plant's.)
func TestEveryFieldOnScreen(t *testing.T) {
	const word = "PLANTED-WORD"
	plant := mcptestutil.Plant(word)
	combos, shown := 0, 0
	for _, typ := range session.EventTypes() {
		for _, f := range eventtest.Fields(typ) {
			h := screenModel(t, 140, 400, themes.Default(), "srv")
			var frames []string
			evs := eventtest.PlantIn(eventtest.Scenario(), typ, f, plant)
			h.feed(evs...)
			pastGuard(h.m)
			frames = append(frames, h.m.View()) // the y/n modal is open
			h.m.Update(tea.KeyMsg{Type: tea.KeyEsc})
			frames = append(frames, h.m.View())
			h.feed(&session.TurnDone{Header: session.Header{}, Turn: 1, Reason: session.ReasonStop})
			h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlT})
			h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlO})
			frames = append(frames, h.m.View())
			seen := false
			for i, fr := range frames {
				if bad := mcptestutil.FirstForbidden(fr); bad != "" {
					t.Errorf("%s.%s, frame %d: %q on screen:\n%s", typ, f, i, bad, fr)
				}
				seen = seen || strings.Contains(fr, word)
			}
			combos += len(frames)
			if seen {
				shown++
			} else if testing.Verbose() {
				t.Logf("not drawn: %s.%s", typ, f)
			}
		}
	}
	if shown < 20 {
		t.Errorf("the plant was visible for only %d fields: the scenario does not draw them", shown)
	}
	t.Logf("%d (event type, field, frame) checks; the plant was drawn (neutralised) for %d fields", combos, shown)
}

// TestResumedViewOfEditedLog resumes a log a person (or an attacker with
// write access) edited: every field of every logged event holds the
// plant. The resumed screen, its cards, notices and pending approvals
// show none of its control characters.
func TestResumedViewOfEditedLog(t *testing.T) {
	plant := mcptestutil.Plant("PLANTED-WORD")
	parked := eventtest.Scenario()
	for _, f := range []string{"ApprovalID", "Tool", "Server", "Arguments"} {
		parked = eventtest.PlantIn(parked, session.TypeApprovalParked, f, plant)
	}
	everything := eventtest.Scenario()
	for i, e := range everything {
		everything[i] = eventtest.PlantAll(e, plant)
	}
	for name, evs := range map[string][]session.Event{"every field": everything, "the parked approval": parked} {
		dir := t.TempDir()
		const id = "20261201-000000-edited"
		eventtest.WriteEditedLog(t, filepath.Join(dir, id+".jsonl"), evs)
		h := screenModel(t, 140, 400, themes.Default(), "srv")
		sess, res, err := session.Resume(session.Options{Client: h.srv.Client(), Model: "qwen3:8b"}, dir, id)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sess.Close)
		m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Resumed: res})
		m.Update(tea.WindowSizeMsg{Width: 140, Height: 400})
		rh := &harness{t: t, m: m}
		rh.command("/approvals")
		view := m.View() + allText(m)
		if bad := mcptestutil.FirstForbidden(view); bad != "" {
			t.Fatalf("%s: %q on the resumed screen:\n%s", name, bad, view)
		}
		if !strings.Contains(view, "PLANTED-WORD") {
			t.Fatalf("%s: the edited log did not reach the screen:\n%s", name, view)
		}
		if name == "the parked approval" && strings.Count(view, "PLANTED-WORD") < 4 {
			t.Fatalf("the parked approval is not shown (card, notice, /approvals):\n%s", view)
		}
	}
}
