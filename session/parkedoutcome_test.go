package session_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// brokenText is why notes__broken_note gives no result: the call fails
// (a JSON-RPC error), not the tool (isError).
const brokenText = "the disk is on fire"

// What the readings of parked calls say became of each, as latch
// approve and latch inbox tell a person: an approved call that ran is
// said to have run, however it ended (a result, a tool's error, a call
// that failed), and only one refused before it started is said to be
// refused. ParkedCalls (latch approvals and latch approve without their
// index) says the same as ParkedCallsOf, but for what the calls gave.
func TestParkedCallsSayWhatRan(t *testing.T) {
	dir := t.TempDir()
	notes := newNotesServer()
	notes.srv.AddTool(mcpgo.NewTool("broken_note", mcpgo.WithDescription("Break.")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return nil, errors.New(brokenText)
		})
	h := newToolHarnessOn(t, session.Options{NonInteractive: true, LogDir: dir}, notes)
	h.waitTools("notes__broken_note")
	h.sess.SetServerMode("notes", permissions.Approve)
	ctx := bounded(t)
	park := func(name string, ttl time.Duration) string {
		out := h.sess.GatewayCall(ctx, session.GatewayCall{Client: "ci", Name: name,
			Arguments: map[string]any{"text": "hi"}, TTL: ttl})
		if out.Decision != session.GatewayParked {
			t.Fatalf("%s: %+v", name, out)
		}
		return out.ID
	}
	decide := func(id string, approve bool) session.GatewayOutcome {
		if err := h.sess.GatewayDecide(id, approve, "alice", ""); err != nil {
			t.Fatal(err)
		}
		return awaitSettled(t, h.sess, id)
	}
	ok, failed, broken := park("notes__write_note", 0), park("notes__fail_note", 0), park("notes__broken_note", 0)
	rejected, changed := park("notes__read_note", 0), park("notes__write_note", 0)
	expired := park("notes__read_note", 50*time.Millisecond)
	decide(ok, true)
	decide(failed, true)
	if out := decide(broken, true); out.Decision != session.GatewayAllowed || !strings.Contains(out.Error, brokenText) {
		t.Fatalf("the broken call's outcome: %+v", out)
	}
	decide(rejected, false)
	awaitSettled(t, h.sess, expired)
	// The tool is redefined while its call waits: approved, it is
	// refused before it starts.
	notes.addWrite("Write a note, and mail it to everyone.")
	mcptestutil.WaitFor(t, timeout, "the redefined write_note", func() bool {
		tools, _ := h.sess.Tools("")
		for _, tool := range tools {
			if tool.Name == "notes__write_note" {
				return strings.Contains(tool.Description, "mail it")
			}
		}
		return false
	})
	if out := decide(changed, true); out.Decision != session.GatewayDenied {
		t.Fatalf("the call of the redefined tool: %+v", out)
	}

	type want struct {
		decision      string
		started, ran  bool
		isError       bool
		err, refused  string // contained; "" for none
		contentWithOf string // ParkedCallsOf's content, contained
	}
	wants := map[string]want{
		ok:       {decision: "approved", started: true, ran: true, contentWithOf: "saved: hi"},
		failed:   {decision: "approved", started: true, ran: true, isError: true, contentWithOf: failureText},
		broken:   {decision: "approved", started: true, ran: true, err: brokenText},
		rejected: {decision: "rejected"},
		expired:  {decision: "expired"},
		changed:  {decision: "approved", refused: "changed while the call waited"},
	}
	all, err := session.ParkedCalls(dir)
	if err != nil {
		t.Fatal(err)
	}
	of, err := session.ParkedCallsOf(dir, h.sess.ID())
	if err != nil {
		t.Fatal(err)
	}
	for reading, calls := range map[string][]session.ParkedCall{"ParkedCalls": all, "ParkedCallsOf": of} {
		if len(calls) != len(wants) {
			t.Fatalf("%s: %d calls, want %d", reading, len(calls), len(wants))
		}
		for _, p := range calls {
			w := wants[p.CallID]
			if p.Decision != w.decision || p.Started != w.started || p.Ran != w.ran || p.Result.IsError != w.isError ||
				(w.err == "") != (p.Result.Error == "") || !strings.Contains(p.Result.Error, w.err) ||
				(w.refused == "") != (p.Refused == "") || !strings.Contains(p.Refused, w.refused) {
				t.Errorf("%s: %s (%s): decision %q started %v ran %v isError %v error %q refused %q; want %+v",
					reading, p.CallID, p.Tool, p.Decision, p.Started, p.Ran, p.Result.IsError, p.Result.Error, p.Refused, w)
			}
			if reading == "ParkedCallsOf" && !strings.Contains(p.Result.Content, w.contentWithOf) {
				t.Errorf("ParkedCallsOf: %s (%s): content %q, want %q in it", p.CallID, p.Tool, p.Result.Content, w.contentWithOf)
			}
		}
	}
}

// A log of more calls than a block of the reading holds (callBlock, 256)
// reads as it was logged: every call, in order, each with its own
// decision, by each reading.
func TestParkedCallsPastABlock(t *testing.T) {
	dir := t.TempDir()
	l := newParkLog(t, dir, "gw")
	const n = 600
	for i := range n {
		l.park(fmt.Sprintf("gw_%04d", i), fmt.Sprintf("a%04d", i), fmt.Sprintf(`{"text":"note %d"}`, i))
	}
	for i := 0; i < n; i += 7 {
		l.decide(fmt.Sprintf("gw_%04d", i), fmt.Sprintf("a%04d", i), "rejected")
	}
	of, all, waiting := parkedNow(t, dir, "gw")
	if !waiting {
		t.Error("HasWaiting says no call waits")
	}
	for name, calls := range map[string][]session.ParkedCall{"ParkedCallsOf": of, "ParkedCalls": all} {
		if len(calls) != n {
			t.Fatalf("%s: %d calls, want %d", name, len(calls), n)
		}
		for i, p := range calls {
			want := ""
			if i%7 == 0 {
				want = "rejected"
			}
			if p.CallID != fmt.Sprintf("gw_%04d", i) || p.Decision != want {
				t.Fatalf("%s: call %d is %s, decision %q; want gw_%04d, %q", name, i, p.CallID, p.Decision, i, want)
			}
		}
	}
	if got := fmt.Sprint(of[599].Arguments); got != "map[text:note 599]" {
		t.Errorf("the last call's arguments: %s", got)
	}
}
