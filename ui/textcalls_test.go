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

// TestCardFromText: a call the model wrote as text is marked on its card,
// whatever becomes of it; a real call is not.
func TestCardFromText(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	defer ol.Close()
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b", ID: "20261129-120000-abcdef"})
	defer sess.Close()
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow }})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	h := session.Header{}
	m.Update(eventsMsg{events: []session.Event{
		&session.UserMessage{Header: h, Turn: 1, Text: "read and write"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_text0001", Server: "notes", Tool: "notes__read_note",
			Arguments: map[string]any{}, ReadOnly: true, FromText: true},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_text0001", Decision: "allowed", By: "policy"},
		&session.ToolResultEvent{Header: h, CallID: "call_text0001", OK: true, DurationMS: 4, Size: 2, Preview: "hi"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_text0002", Server: "notes", Tool: "notes__write_note",
			Arguments: map[string]any{"text": "x"}, FromText: true},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: "call_text0002", Decision: "denied", By: "policy", Reason: "read_only"},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "call_real0003", Server: "notes", Tool: "notes__list_notes",
			Arguments: map[string]any{}},
	}})
	view := m.View()
	var read, write, real string
	for _, l := range strings.Split(view, "\n") {
		switch {
		case strings.Contains(l, "notes__read_note"):
			read = l
		case strings.Contains(l, "notes__write_note"):
			write = l
		case strings.Contains(l, "notes__list_notes"):
			real = l
		}
	}
	if !strings.Contains(read, "notes__read_note · read-only · from text") {
		t.Errorf("read card head %q, want it marked from text", read)
	}
	if !strings.Contains(write, "notes__write_note · from text") {
		t.Errorf("denied card head %q, want it marked from text", write)
	}
	if real == "" || strings.Contains(real, "from text") {
		t.Errorf("real call's card head %q, want no from-text mark", real)
	}
}

// A model that writes its tool call as text: once the reply is over, the
// raw <tool_call>{…}</tool_call> is gone from the chat, its card shows
// in its place (marked from text), and the words before it stay.
func TestTextCallShowsItsCardNotTheRawText(t *testing.T) {
	h, _ := toolHarness(t, permissions.ReadOnly)
	h.srv.Script(
		ollamatest.TextTurn("Let me read it.\n<tool_call>\n{\"name\": \"notes__read_note\", \"arguments\": {}}\n</tool_call>"),
		ollamatest.TextTurn("The note says hi."),
	)
	h.send("what does my note say?")
	v := strings.Join(strings.Fields(allText(h.m)), " ")
	for _, not := range []string{"<tool_call>", "</tool_call>", `"arguments"`} {
		if strings.Contains(v, not) {
			t.Errorf("the raw call stays in the chat (%q):\n%s", not, allText(h.m))
		}
	}
	for _, want := range []string{"Let me read it.", "notes__read_note · read-only · from text", "The note says hi."} {
		if !strings.Contains(v, want) {
			t.Errorf("the chat lacks %q:\n%s", want, allText(h.m))
		}
	}
}

// While a reply streams, a tool call being written as text does not
// flash on screen: the words before it show, nothing from <tool_call>
// on, even when the marker comes split across deltas; and a "<" that
// is no marker shows once the next delta says so.
func TestStreamingTextCallIsNotShownRaw(t *testing.T) {
	fh := newFakeHarness(t, 100, 30)
	hd := session.Header{}
	fh.feed(&session.UserMessage{Header: hd, Turn: 1, Text: "read my note"})
	for _, d := range []string{"Let me read it; 2 <", " 3.\n<to", "ol_ca", "ll>\n{\"name\": \"notes__read_note\",", " \"arguments\": {}}\n</tool_call>"} {
		fh.feed(&session.AssistantDelta{Header: hd, Turn: 1, Text: d})
		v := fh.m.View()
		for _, not := range []string{"<to", "tool_call", "notes__read_note", "arguments"} {
			if strings.Contains(v, not) {
				t.Fatalf("after %q the screen shows %q:\n%s", d, not, v)
			}
		}
	}
	if v := strings.Join(strings.Fields(fh.m.View()), " "); !strings.Contains(v, "Let me read it; 2 < 3.") {
		t.Errorf("the words before the call are not shown:\n%s", fh.m.View())
	}
}
