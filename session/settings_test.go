package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// notices collects the texts of the notices among evs.
func notices(evs []session.Event) []string {
	var out []string
	for _, n := range of[*session.Notice](evs) {
		out = append(out, n.Text)
	}
	return out
}

// TestResumeRestoresTheMode: a call parked under approve mode (given by
// flag, not by the config) is approved after a restart whose config says
// read_only: the session's mode comes back from the log, and the approved
// call runs once.
func TestResumeRestoresTheMode(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := park(t, box, "hat", true)
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The hat is in the box."))
	s, _ := resume(t, logOptions(ol, dir, box, permissions.ReadOnly), dir, id)
	if m := s.Mode(); m != permissions.Approve {
		t.Fatalf("resumed mode %v, want approve (the session's)", m)
	}
	r := startLogged(t, s)
	if err := s.Decide(ap, true); err != nil {
		t.Fatal(err)
	}
	finishedWith(t, r.turn(), session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"hat"}) {
		t.Fatalf("puts %v, want exactly one", w)
	}
}

// TestApprovalRunsWhateverTheModeNow: --mode read_only given on resume
// overrides the session's mode (with a notice), but a call the person
// approves explicitly still runs: they decided.
func TestApprovalRunsWhateverTheModeNow(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := park(t, box, "hat", true)
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The hat is in the box."))
	o := logOptions(ol, dir, box, permissions.ReadOnly)
	o.ModeFromFlag = true
	s, _ := resume(t, o, dir, id)
	r := startLogged(t, s)
	if m := s.Mode(); m != permissions.ReadOnly {
		t.Fatalf("mode %v, want read_only (the flag)", m)
	}
	if err := s.Decide(ap, true); err != nil {
		t.Fatal(err)
	}
	evs := r.turn()
	finishedWith(t, evs, session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"hat"}) {
		t.Fatalf("puts %v, want exactly one: the approval runs the call", w)
	}
	if p := one[*session.PermissionEvent](t, evs); p.Decision != "allowed" || p.By != "user" {
		t.Errorf("permission %+v, want allowed by the user", p)
	}
	if !strings.Contains(strings.Join(notices(evs), "\n"), "--mode read_only overrides this session's mode approve") {
		t.Errorf("no notice that the flag overrides the session's mode: %q", notices(evs))
	}
}

// TestApprovalOfAChangedToolIsDecidedAgain: the tool's description changed
// between parking and the approval (after a restart): the approval does
// not cover it; the user is told what changed, and the call parks again.
func TestApprovalOfAChangedToolIsDecidedAgain(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := park(t, box, "hat", true)
	changed := newLogBox()
	changed.srv.AddTool(mcpgo.NewTool("put", mcpgo.WithDescription("Put a thing into the box, and burn the box."),
		mcpgo.WithString("thing", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			changed.mu.Lock()
			changed.puts = append(changed.puts, req.GetString("thing", ""))
			changed.mu.Unlock()
			return mcpgo.NewToolResultText("burnt"), nil
		})
	s, _ := resume(t, logOptions(newServer(t, logModel), dir, changed, permissions.ReadOnly), dir, id)
	r := startLogged(t, s)
	if err := s.Decide(ap, true); err != nil {
		t.Fatal(err)
	}
	evs := r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	if w := changed.written(); len(w) != 0 {
		t.Fatalf("the changed tool ran on the old approval: %v", w)
	}
	n := strings.Join(notices(evs), "\n")
	if !strings.Contains(n, `its description was "Put a thing into the box.", now "Put a thing into the box, and burn the box."`) {
		t.Fatalf("notices %q do not say what changed", n)
	}
	if again := of[*session.ApprovalParkedEvent](evs); len(again) != 1 || again[0].ApprovalID == ap {
		t.Fatalf("parked again as %+v, want a new approval", again)
	}
}

// TestResumeRestoresGrants: a session grant (/allow) is logged and holds
// after a restart, for the same definition.
func TestResumeRestoresGrants(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	s := session.New(logOptions(newServer(t, logModel), dir, box, permissions.Ask))
	startLogged(t, s)
	if err := s.Grant("box__put"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s2, _ := resume(t, logOptions(newServer(t, logModel), dir, box, permissions.ReadOnly), dir, s.ID())
	startLogged(t, s2)
	if m := s2.Mode(); m != permissions.Ask {
		t.Errorf("mode %v, want ask", m)
	}
	if !slices.ContainsFunc(s2.AllowList(), func(e permissions.Entry) bool {
		return e.Name == "box__put" && e.Source == permissions.FromSession
	}) {
		t.Fatalf("AllowList after resume: %+v, want the session grant of box__put", s2.AllowList())
	}
}

// TestResumeGivesTheModelTheWholeResult: latch stopped after a call's
// result was logged but before the model's copy was; on resume the model
// gets the result it would have had live, not the log's 2 KB preview.
func TestResumeGivesTheModelTheWholeResult(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	big := strings.Repeat("0123456789abcdef", 512) // 8 KB
	box.srv.AddTool(mcpgo.NewTool("dump", mcpgo.WithReadOnlyHintAnnotation(true)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(big), nil
		})
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_dump", "box__dump")), ollamatest.TextTurn("Dumped."))
	o := logOptions(ol, dir, box, permissions.Auto)
	s := session.New(o)
	r := startLogged(t, s)
	send(t, s, "dump it")
	finishedWith(t, r.turn(), session.ReasonStop)
	s.Close()
	// Drop the model's copy of the result: what a crash right after the
	// tool_result leaves.
	var kept []string
	for _, l := range logLines(t, logFile(dir, s.ID())) {
		if strings.Contains(l, `"type":"message"`) && strings.Contains(l, `"tool_call_id":"call_dump"`) {
			continue
		}
		if strings.Contains(l, `"type":"message"`) && strings.Contains(l, `"Dumped."`) {
			continue
		}
		kept = append(kept, l)
	}
	writeLines(t, logFile(dir, s.ID()), kept)
	ol2 := newServer(t, logModel)
	ol2.Script(ollamatest.TextTurn("Dumped."))
	s2, _ := resume(t, logOptions(ol2, dir, box, permissions.Auto), dir, s.ID())
	r2 := startLogged(t, s2)
	if !s2.Continue() {
		t.Fatal("the resumed turn did not go on")
	}
	finishedWith(t, r2.turn(), session.ReasonStop)
	reqs := ol2.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, m := range reqs[0].Messages {
		if m.Role == "tool" && m.ToolCallID == "call_dump" {
			if m.Content != big {
				t.Fatalf("the model got %d bytes ending %q, want the whole %d-byte result", len(m.Content), m.Content[max(len(m.Content)-10, 0):], len(big))
			}
			return
		}
	}
	t.Fatal("the model's request lacks the result")
}
