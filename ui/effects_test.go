package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// TestResumedIdempotentCallRunsAgainWithANotice: the call in doubt of the
// in-doubt log, on a notes server whose effect is idempotent: the resumed
// chat says it runs again (no /retry or /dismiss to type), it runs once
// the servers are up, saying so, and its one card ends done.
func TestResumedIdempotentCallRunsAgainWithANotice(t *testing.T) {
	dir, id := inDoubtLog(t)
	srv, w := newToolServer()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	ol.Script(ollamatest.TextTurn("Written again."))
	sess, res, err := session.Resume(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Servers:    []session.ServerConfig{{Name: "notes", Transport: "inprocess", InProcess: srv}},
		Policy:     permissions.Policy{Mode: permissions.Auto},
		Idempotent: []string{"notes"}}, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.InDoubt) != 0 || len(res.Retrying) != 1 {
		t.Fatalf("in doubt %+v, retrying %+v; want the call retried", res.InDoubt, res.Retrying)
	}
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1, Resumed: res,
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}

	v := allText(m)
	if !strings.Contains(v, "call call_d1 (notes__write_note) was running when latch stopped: its server, notes, is idempotent: it runs again") ||
		strings.Contains(v, "/retry call_d1") {
		t.Fatalf("the resumed chat should say the call runs again, not ask for /retry:\n%s", v)
	}
	sess.StartServers()
	h.m.Update(m.continueResumed()())
	h.untilTurnDone()
	v = allText(m)
	if !strings.Contains(v, "runs again, once, through the gate") || !strings.Contains(v, "Written again.") {
		t.Errorf("the retry's notice or the model's answer is missing:\n%s", v)
	}
	if n := cardsOf(m, "call_d1"); n != 1 || m.cards["call_d1"].card.state != cardDone {
		t.Errorf("%d cards of call_d1, want one, done:\n%s", n, v)
	}
	if w.count() != 1 {
		t.Errorf("the note was written %d times on resume, want once", w.count())
	}
}

// TestResumedIdempotentCallHeldWhileServerDown: without its server, the
// call that was to run again waits for a person: the chat says why, and
// its card says how to settle it.
func TestResumedIdempotentCallHeldWhileServerDown(t *testing.T) {
	dir, id := inDoubtLog(t)
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	sess, res, err := session.Resume(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		Policy: permissions.Policy{Mode: permissions.Auto}, Idempotent: []string{"notes"}}, dir, id)
	if err != nil {
		t.Fatal(err)
	}
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1, Resumed: res,
		Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	h := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	h.m.Update(m.continueResumed()())
	h.until(func() bool { return strings.Contains(allText(m), "is not run again on its own") })
	v := allText(m)
	if !strings.Contains(v, "its server, notes, is not connected") || !strings.Contains(v, "outcome unknown: latch stopped while it ran · /retry call_d1 or /dismiss call_d1") {
		t.Errorf("the held call should say why and how to settle it:\n%s", v)
	}
	if len(ol.Requests()) != 0 {
		t.Error("the model was asked while the call waits")
	}
}
