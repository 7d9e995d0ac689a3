package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// ruleFileForTests is where the rule saver of these tests says it writes.
const ruleFileForTests = "/home/me/.config/latch/config.json"

// savedRules is a rule saver as main gives one, over a list instead of
// the config file: it records each rule and names it as the config's
// loader would, or fails with fail when that is set.
type savedRules struct {
	specs []permissions.RuleSpec
	fail  error
}

func (s *savedRules) options() Options {
	return Options{
		RuleFile: func() (string, error) { return ruleFileForTests, nil },
		SaveRule: func(spec permissions.RuleSpec) (permissions.Rule, error) {
			if s.fail != nil {
				return permissions.Rule{}, s.fail
			}
			s.specs = append(s.specs, spec)
			return permissions.CompileRule(spec, "", fmt.Sprintf("config %s: permissions.rules[%d]", ruleFileForTests, len(s.specs)-1), "")
		},
	}
}

// ruleHarness is a UI in ask mode over the notes server whose box's A can
// save argument rules through saver (and servers beside it).
func ruleHarness(t *testing.T, saver *savedRules, uo Options, servers ...session.ServerConfig) (*harness, *toolServer) {
	t.Helper()
	so := saver.options()
	uo.RuleFile, uo.SaveRule = so.RuleFile, so.SaveRule
	return toolHarnessUI(t, session.Options{ID: "20261129-120000-abcdef", Policy: permissions.Policy{Mode: permissions.Ask}, Servers: servers}, uo)
}

// press gives the UI one key; pressRun also runs what the key started
// (a rule being written) and gives the UI what that did.
func press(h *harness, k tea.KeyMsg) { h.m.Update(k) }

func pressRun(h *harness, k tea.KeyMsg) {
	_, cmd := h.m.Update(k)
	for _, msg := range runCmd(cmd) {
		h.m.Update(msg)
	}
}

// TestAskModalSavesAnArgumentRule: A in the box shows, before anything
// is written, the rules it can save for this call — its exact value
// (chosen first: never wider than the call), the call's folder, the whole
// tool — each as it will be written, and the file; an Enter typed right
// after A is not taken; Esc goes back with nothing written; Enter on the
// folder rule writes it, runs the call, and
// from then on a call in that folder runs without asking while one
// elsewhere still asks.
func TestAskModalSavesAnArgumentRule(t *testing.T) {
	saver := &savedRules{}
	h, w := ruleHarness(t, saver, Options{})
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "/srv/proj/notes/a.txt")}},
		ollamatest.TextTurn("Written."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_2", "notes__write_note", "text", "/srv/proj/notes/sub/../b.txt")}},
		ollamatest.TextTurn("Written without asking."),
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_3", "notes__write_note", "text", "/srv/proj/notes/../../other/c.txt")}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write a")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	v := h.m.View()
	for _, want := range []string{
		"› allow notes__write_note(text=/srv/proj/notes/a.txt)",
		"allow notes__write_note(text=/srv/proj/notes/**)",
		"allow notes__write_note with any arguments, as the tool is defined now",
		"written to permissions.rules in " + ruleFileForTests,
		"enter save and run it · esc back",
	} {
		if !strings.Contains(v, want) {
			t.Fatalf("A's second step does not show %q:\n%s", want, v)
		}
	}
	press(h, tea.KeyMsg{Type: tea.KeyEnter}) // typed right after A: not a choice
	if len(saver.specs) != 0 || w.count() != 0 || h.m.modal == nil {
		t.Fatalf("an Enter typed right after A saved %v (ran %d)", saver.specs, w.count())
	}
	pastGuard(h.m)
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	if len(saver.specs) != 0 || w.count() != 0 || h.m.modal == nil || !strings.Contains(h.m.View(), "A allow always") {
		t.Fatalf("Esc did not go back with nothing written: saved %v, ran %d:\n%s", saver.specs, w.count(), h.m.View())
	}

	press(h, runes("A"))
	pastGuard(h.m)
	press(h, tea.KeyMsg{Type: tea.KeyDown})
	if v := h.m.View(); !strings.Contains(v, "› allow notes__write_note(text=/srv/proj/notes/**)") {
		t.Fatalf("↓ did not choose the folder rule:\n%s", v)
	}
	pressRun(h, tea.KeyMsg{Type: tea.KeyEnter})
	h.untilTurnDone()
	if w.count() != 1 || len(saver.specs) != 1 || permissions.FormatCompact(saver.specs[0]) != "notes__write_note(text=/srv/proj/notes/**)" {
		t.Fatalf("Enter: ran %d, saved %v", w.count(), saver.specs)
	}
	if v := strings.Join(strings.Fields(allText(h.m)), " "); !strings.Contains(v,
		"saved: notes__write_note(text=/srv/proj/notes/**) is allowed from now on (config "+ruleFileForTests+": permissions.rules[0]") {
		t.Errorf("no notice of the rule saved and where:\n%s", v)
	}

	h.typeText("write b")
	h.key(tea.KeyEnter)
	h.untilTurnDone()
	if w.count() != 2 || h.m.modal != nil {
		t.Fatalf("a call in the saved folder asked again (ran %d)", w.count())
	}
	h.typeText("write c")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	if w.count() != 2 {
		t.Fatalf("a call outside the saved folder ran without asking")
	}
	pastGuard(h.m)
	press(h, runes("n"))
	h.untilTurnDone()
}

// TestAskModalRuleNotSavedStaysInTheBox: a rule that cannot be written
// leaves the box on its second step, saying why; the call has not run,
// and it can still be answered.
func TestAskModalRuleNotSavedStaysInTheBox(t *testing.T) {
	saver := &savedRules{fail: errors.New(ruleFileForTests + ": permission denied")}
	h, w := ruleHarness(t, saver, Options{})
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "/srv/proj/a.txt")}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write a")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	pastGuard(h.m)
	pressRun(h, tea.KeyMsg{Type: tea.KeyEnter})
	if v := h.m.View(); h.m.modal == nil || !strings.Contains(v, "not saved: "+ruleFileForTests+": permission denied") {
		t.Fatalf("the box does not say the rule was not saved:\n%s", v)
	}
	if w.count() != 0 {
		t.Fatal("the call ran though its rule was not saved")
	}
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	press(h, runes("n"))
	h.untilTurnDone()
	if w.count() != 0 {
		t.Fatal("n: the call ran")
	}
}

// TestGoldenSaveRuleStep draws A's second step for a file at the root:
// no folder rule (it would be /**), the exact value, and the whole tool.
func TestGoldenSaveRuleStep(t *testing.T) {
	h, _ := ruleHarness(t, &savedRules{}, Options{Now: func() time.Time { return fixedNow }})
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "/notes.txt")}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write it")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	pastGuard(h.m)
	v := h.m.View()
	if strings.Contains(v, "/**") {
		t.Errorf("a folder rule for a file at the root:\n%s", v)
	}
	golden.RequireEqual(t, []byte(v))
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	press(h, runes("n"))
	h.untilTurnDone()
}

// TestAskModalNeverOffersARuleWithACredential: a rule derived from a call
// that carries a credential latch knows is not offered: it would be
// written into the config in the clear, and the box could show it only
// hidden, not as written. The rules without it still are.
func TestAskModalNeverOffersARuleWithACredential(t *testing.T) {
	const secret = "tok-8f3a9c2e71d04b55"
	saver := &savedRules{}
	so := saver.options()
	h, _ := toolHarnessUI(t, session.Options{ID: "20261129-120000-abcdef", Policy: permissions.Policy{Mode: permissions.Ask},
		Servers: []session.ServerConfig{{Name: "vault", Command: "/nonexistent/vault", Secrets: []string{secret}}}},
		Options{RuleFile: so.RuleFile, SaveRule: so.SaveRule})
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "/srv/proj/a.txt", "key", secret)}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write a")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	v := h.m.View()
	if strings.Contains(v, secret) || strings.Contains(v, "key=") {
		t.Fatalf("A offers a rule holding the credential:\n%s", v)
	}
	if !strings.Contains(v, "› allow notes__write_note(text=/srv/proj/**)") {
		t.Fatalf("the folder rule, which holds no credential, is not offered:\n%s", v)
	}
	pastGuard(h.m)
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	pastGuard(h.m)
	press(h, runes("n"))
	h.untilTurnDone()
}

// TestAskModalOffersOnlyRulesShownAsWritten: a rule whose text holds a
// character the screen would show otherwise (an escape sequence a server
// or the model chose) is not offered; the folder rule, which holds none,
// is, and the box shows no raw escape.
func TestAskModalOffersOnlyRulesShownAsWritten(t *testing.T) {
	h, _ := ruleHarness(t, &savedRules{}, Options{})
	h.srv.Script(
		ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall("call_1", "notes__write_note", "text", "/srv/proj/a\x1b]52;c;cm0gLXJmIH4=\x07.txt")}},
		ollamatest.TextTurn("Not written."),
	)
	h.typeText("write a")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	v := h.m.View()
	if strings.Contains(v, "\x1b") || strings.Contains(v, "allow notes__write_note(text=/srv/proj/a") {
		t.Fatalf("A offers a rule shown otherwise than written:\n%s", v)
	}
	if !strings.Contains(v, "› allow notes__write_note(text=/srv/proj/**)") {
		t.Fatalf("the folder rule is not offered:\n%s", v)
	}
	pastGuard(h.m)
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	pastGuard(h.m)
	press(h, runes("n"))
	h.untilTurnDone()
}

// moveFileServer is a server with server-filesystem's move_file: its
// schema (source, destination), and a record of the moves it made.
func moveFileServer() (*mcpserver.MCPServer, *toolServer) {
	w := &toolServer{}
	s := mcpserver.NewMCPServer("fs", "1.0")
	s.AddTool(mcp.NewTool("move_file", mcp.WithDescription("Move or rename files and directories."),
		mcp.WithString("source", mcp.Required()), mcp.WithString("destination", mcp.Required())),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			w.mu.Lock()
			w.writes = append(w.writes, req.GetString("source", "")+" -> "+req.GetString("destination", ""))
			w.mu.Unlock()
			return mcp.NewToolResultText("moved"), nil
		})
	return s, w
}

// TestAskModalFolderRuleHoldsEveryPath: for server-filesystem's
// move_file, A offers the exact call first, then one folder rule that
// holds both the source and the destination, each in its own folder; a
// move from the project into ~/.ssh gets no rule that leaves the
// destination free (its folder rule holds both folders).
func TestAskModalFolderRuleHoldsEveryPath(t *testing.T) {
	saver := &savedRules{}
	srv, moves := moveFileServer()
	h, _ := ruleHarness(t, saver, Options{}, session.ServerConfig{Name: "fs", Transport: "inprocess", InProcess: srv})
	h.until(func() bool { c, _, _ := h.m.serverCounts(); return c == 2 })
	move := func(id, src, dst string) ollamatest.Turn {
		return ollamatest.Turn{Chunks: []ollamatest.Chunk{toolCall(id, "fs__move_file", "source", src, "destination", dst)}}
	}
	h.srv.Script(
		move("call_1", "/srv/proj/a.txt", "/srv/proj/old/a.txt"), ollamatest.TextTurn("Moved."),
		move("call_2", "/srv/proj/b.txt", "/home/me/.ssh/authorized_keys"), ollamatest.TextTurn("Not moved."),
	)
	h.typeText("tidy up")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	v := h.m.View()
	for _, want := range []string{
		"› allow fs__move_file(destination=/srv/proj/old/a.txt, source=/srv/proj/a.txt)",
		"  allow fs__move_file(destination=/srv/proj/old/**, source=/srv/proj/**)",
	} {
		if !strings.Contains(v, want) {
			t.Fatalf("A's second step does not show %q:\n%s", want, v)
		}
	}
	if strings.Contains(v, "allow fs__move_file(source=/srv/proj/**)") || strings.Contains(v, "allow fs__move_file(destination=/srv/proj/old/**)") {
		t.Fatalf("A offers a folder rule that leaves a path free:\n%s", v)
	}
	pastGuard(h.m)
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	press(h, runes("y"))
	h.untilTurnDone()

	h.typeText("and the key")
	h.key(tea.KeyEnter)
	h.until(func() bool { return h.m.modal != nil })
	pastGuard(h.m)
	press(h, runes("A"))
	v = h.m.View()
	if !strings.Contains(v, "allow fs__move_file(destination=/home/me/.ssh/**, source=/srv/proj/**)") ||
		strings.Contains(v, "allow fs__move_file(source=/srv/proj/**)") {
		t.Fatalf("A for a move into ~/.ssh offers a rule that leaves the destination free:\n%s", v)
	}
	pastGuard(h.m)
	press(h, tea.KeyMsg{Type: tea.KeyEsc})
	press(h, runes("n"))
	h.untilTurnDone()
	if moves.count() != 1 {
		t.Errorf("moves made: %v, want the first only", moves.writes)
	}
}
