package session_test

import (
	"strings"
	"testing"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// These tests script a model that writes its tool call as text in its
// content (as small models do) instead of as tool_calls: latch runs it as a
// call, through the same gate, and the model gets the result.

// textCallID checks that a recovered call got a fresh id in Ollama's style.
func textCallID(t *testing.T, id string) {
	t.Helper()
	if !strings.HasPrefix(id, "call_") || len(id) != len("call_")+8 {
		t.Errorf("call id %q, want a fresh call_XXXXXXXX", id)
	}
}

func TestTextToolCallRuns(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto}})
	const written = "Let me read it.\n<tool_call>\n{\"name\": \"notes__read_note\", \"arguments\": {}}\n</tool_call>"
	h.ol.Script(ollamatest.TextTurn(written), ollamatest.TextTurn("The note says to buy milk."))

	send(t, h.sess, "what does my note say?")
	evs := h.r.turn()
	finished(t, evs, "The note says to buy milk.")

	call := one[*session.ToolCallEvent](t, evs)
	if !call.FromText || call.Tool != "notes__read_note" || call.Server != "notes" || call.Turn != 1 {
		t.Errorf("tool_call = %+v, want notes__read_note from text", call)
	}
	textCallID(t, call.CallID)
	if d := decisions(evs, call.CallID); len(d) != 1 || d[0] != "allowed/policy" {
		t.Errorf("decisions = %v, want allowed by policy", d)
	}
	res := one[*session.ToolResultEvent](t, evs)
	if !res.OK || res.CallID != call.CallID || res.Content != noteText {
		t.Errorf("tool_result = %+v, want the note", res)
	}
	if got := h.notes.readCount(); got != 1 {
		t.Errorf("read_note ran %d times, want 1", got)
	}
	// The user sees the prose, the call's card in its place; the log
	// keeps what the model wrote, as it wrote it.
	if msgs := of[*session.AssistantMessage](evs); len(msgs) != 2 || msgs[0].Content != "Let me read it." || msgs[0].Written != written {
		t.Errorf("assistant messages = %+v, want the prose first, the text of the call kept as written", msgs)
	}

	// The model's next request: its reply as a proper call, then the
	// result answering it.
	reqs := h.requests(2)
	msgs := reqs[1].Messages
	if len(msgs) != 3 || msgs[1].Role != "assistant" || msgs[2].Role != "tool" {
		t.Fatalf("second request messages = %+v, want user, assistant (the call), tool", msgs)
	}
	if tc := msgs[1].ToolCalls; len(tc) != 1 || tc[0].ID != call.CallID || tc[0].Function.Name != "notes__read_note" {
		t.Errorf("the assistant message carries calls %+v, want the recovered call", tc)
	}
	if msgs[1].Content != "Let me read it." {
		t.Errorf("the assistant message's content %q, want the prose without the call", msgs[1].Content)
	}
	if m := onlyToolMessage(t, reqs[1], call.CallID, "notes__read_note"); m.Content != noteText {
		t.Errorf("tool message content %q, want %q", m.Content, noteText)
	}
}

func TestTextToolCallArgumentsReachTheTool(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{
		ServerAllow: map[string][]string{"notes": {"write_note"}},
	}})
	h.ol.Script(ollamatest.TextTurn("```json\n{\"function\": \"notes__write_note\", \"parameters\": {\"text\": \"milk\"}}\n```"),
		ollamatest.TextTurn("Saved."))

	send(t, h.sess, "note: milk")
	evs := h.r.turn()
	finished(t, evs, "Saved.")
	if call := one[*session.ToolCallEvent](t, evs); !call.FromText || call.Arguments["text"] != "milk" {
		t.Errorf("tool_call = %+v", call)
	}
	if w := h.notes.written(); len(w) != 1 || w[0] != "milk" {
		t.Errorf("write_note ran with %v, want [milk]", w)
	}
}

func TestTextToolCallReadOnlyDenied(t *testing.T) {
	t.Parallel()
	// read_only: a write written as text is denied by the gate like any
	// call — the text is never a way around it.
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.ReadOnly}})
	h.ol.Script(ollamatest.TextTurn(`[TOOL_CALLS] [{"name": "notes__write_note", "arguments": {"text": "hi"}}]`),
		ollamatest.TextTurn("I may not write notes."))

	send(t, h.sess, "save hi")
	evs := h.r.turn()
	finished(t, evs, "I may not write notes.")

	call := one[*session.ToolCallEvent](t, evs)
	if !call.FromText {
		t.Errorf("tool_call = %+v, want from text", call)
	}
	p := one[*session.PermissionEvent](t, evs)
	if p.Decision != "denied" || p.By != permissions.ByPolicy || p.Mode != "read_only" || p.CallID != call.CallID {
		t.Errorf("permission = %+v, want denied by policy in read_only", p)
	}
	if w := h.notes.written(); len(w) != 0 {
		t.Fatalf("write_note ran in read_only: %v", w)
	}
	reqs := h.requests(2)
	msg := errorOf(t, onlyToolMessage(t, reqs[1], call.CallID, "notes__write_note").Content)
	if !strings.HasPrefix(msg, "denied: ") {
		t.Errorf("the model was told %q, want a denial", msg)
	}
}

func TestTextToolCallOff(t *testing.T) {
	t.Parallel()
	h := newToolHarness(t, session.Options{NoTextToolCalls: true, Policy: permissions.Policy{Mode: permissions.Auto}})
	const written = `<tool_call>{"name": "notes__read_note", "arguments": {}}</tool_call>`
	h.ol.Script(ollamatest.TextTurn(written))

	send(t, h.sess, "what does my note say?")
	evs := h.r.turn()
	finished(t, evs, written)
	if n := len(of[*session.ToolCallEvent](evs)); n != 0 {
		t.Errorf("%d tool_call events with text tool calls off", n)
	}
	if got := h.notes.readCount(); got != 0 {
		t.Errorf("read_note ran %d times", got)
	}
	h.requests(1)
}

func TestTextToolCallNotFromThinkingOrProse(t *testing.T) {
	t.Parallel()
	thinker := ollamatest.Model{Name: "qwen3:8b", Family: "qwen3", Capabilities: []string{"completion", "tools", "thinking"}}
	h := newToolHarness(t, session.Options{Policy: permissions.Policy{Mode: permissions.Auto}}, thinker)
	call := `<tool_call>{"name": "notes__read_note", "arguments": {}}</tool_call>`
	quoted := "A call looks like this: " + call + " and nothing runs."
	h.ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{Thinking: call}, {Content: "I will not call it."}}},
		ollamatest.TextTurn(quoted))

	for _, want := range []string{"I will not call it.", quoted} {
		send(t, h.sess, "go")
		evs := h.r.turn()
		finished(t, evs, want)
		if n := len(of[*session.ToolCallEvent](evs)); n != 0 {
			t.Errorf("%d tool_call events for %q", n, want)
		}
	}
	if got := h.notes.readCount(); got != 0 {
		t.Errorf("read_note ran %d times", got)
	}
	h.requests(2)
}
