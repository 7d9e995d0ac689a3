package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// In a chat's session (latch --serve), a client's call of ask mode is
// asked as the model's are; a client that gives up its call before an
// answer has it refused: nothing runs, and a later answer finds nothing
// to answer.
func TestGatewayAskedCallGivenUpIsRefused(t *testing.T) {
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	ctx, cancel := context.WithCancel(bounded(t))
	out := make(chan session.GatewayOutcome, 1)
	go func() {
		out <- h.sess.GatewayCall(ctx, session.GatewayCall{Client: "goose", Name: "notes__write_note",
			Arguments: map[string]any{"text": "hi"}, Ask: time.Minute})
	}()
	var id string
	h.r.until(func(e session.Event) bool {
		p, ok := e.(*session.PermissionEvent)
		if ok && p.Decision == "asked" {
			id = p.CallID
		}
		return id != ""
	})
	cancel()
	got := <-out
	if got.Decision != session.GatewayDenied || !strings.Contains(got.Reason, "gave up") {
		t.Errorf("outcome %+v, want refused: the client gave up", got)
	}
	if h.sess.AnswerAsk(id, session.AnswerYes) {
		t.Error("a call its client gave up is still askable")
	}
	if w := h.notes.written(); len(w) != 0 || len(h.sess.Approvals()) != 0 {
		t.Errorf("ran %q, parked %d: want neither", w, len(h.sess.Approvals()))
	}
}

// An answer that is not one of the answers that run a call (a client's
// "decide later" given to a model's question, or anything unknown)
// refuses a model's asked call: it fails closed.
func TestAskedCallUnknownAnswerDenies(t *testing.T) {
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Ask}})
	h.ol.Script(callsTurn(toolCall("call_later001", "notes__write_note", "text", "hi")), ollamatest.TextTurn("Not written."))
	send(t, h.sess, "save hi")
	h.r.until(isAsked("call_later001"))
	if !h.sess.AnswerAsk("call_later001", session.Answer(len("yes, any other answer"))) {
		t.Fatal("AnswerAsk found no waiting call")
	}
	evs := h.r.turn()
	if p := of[*session.PermissionEvent](evs); len(p) == 0 || p[len(p)-1].Decision != "denied" {
		t.Errorf("permission events %+v, want the call denied", p)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Errorf("an unknown answer ran the call: %q", w)
	}
}

// A chat with a gateway beside it, resumed (latch --resume ID --serve),
// takes up its clients' parked calls: /approve in the chat runs one once
// and the client's poll gets its result.
func TestChatGatewayResumedTakesUpParkedCalls(t *testing.T) {
	dir := t.TempDir()
	o := session.Options{LogDir: dir, ID: "chat-gw-resume", Policy: permissions.Policy{Mode: permissions.Approve}}
	h := newToolHarness(t, o)
	out := h.sess.GatewayCall(bounded(t), session.GatewayCall{Client: "goose", Name: "notes__write_note",
		Arguments: map[string]any{"text": "after the restart"}, Ask: time.Minute})
	if out.Decision != session.GatewayParked {
		t.Fatalf("approve mode: %+v", out)
	}
	h.sess.Close()

	notes := newNotesServer()
	ol := newServer(t, toolsModel)
	o.Client, o.Host, o.Model = ol.Client(), ol.Host(), toolsModel.Name
	o.Servers = []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: notes.srv}}
	s, _, err := session.Resume(o, dir, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	s.StartServers()
	s.WaitServers(bounded(t))
	if n, err := s.ResumeGateway(); err != nil || n != 1 {
		t.Fatalf("ResumeGateway: %d, %v", n, err)
	}
	aps := s.Approvals()
	if len(aps) != 1 || aps[0].CallID != out.ID {
		t.Fatalf("pending approvals after the restart: %+v", aps)
	}
	if err := s.Decide(aps[0].ID, true); err != nil {
		t.Fatal(err)
	}
	if got := awaitSettled(t, s, out.ID); got.Decision != session.GatewayAllowed || got.Result == nil {
		t.Errorf("the poll after /approve: %+v", got)
	}
	if w := notes.written(); len(w) != 1 {
		t.Errorf("the notes server got %q, want the call once", w)
	}
}
