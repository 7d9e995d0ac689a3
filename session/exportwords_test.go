package session_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"latch/session"
	"latch/session/eventtest"
)

// wordsSession is a session's log with one event of every kind a log
// holds, as latch writes them, and for each kind the words its line in a
// transcript must read.
func wordsSession() ([]session.Event, map[string]string) {
	h := session.Header{}
	evs := []session.Event{
		&session.SessionStarted{Header: h, Model: "qwen3:8b", Host: "127.0.0.1:11434"},
		&session.InstructionsEvent{Header: h}, // none: the log holds "instructions": null
		&session.SettingsEvent{Header: h, Mode: "ask"},
		&session.ServerStatusEvent{Header: h, Server: "fs", State: "ready", Summary: "ready · 3 tools"},
		&session.ToolsChangedEvent{Header: h, Server: "fs", Tools: 1, Removed: []string{"fs__old"}},
		&session.PromptsChangedEvent{Header: h, Server: "fs", Prompts: 2, First: true},
		&session.UserMessage{Header: h, Turn: 1, Text: "read @fs:file:///notes.txt"},
		&session.AttachmentEvent{Header: h, Turn: 1, Server: "fs", URI: "file:///notes.txt", Kind: "text", Size: 10, Sent: 10},
		&session.AssistantMessage{Header: h, Turn: 1, Content: "Reading."},
		&session.ToolCallEvent{Header: h, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__read", Arguments: map[string]any{"path": "/a"}},
		&session.PermissionEvent{Header: h, Turn: 1, CallID: "c1", Tool: "fs__read", Decision: "parked", By: "policy", Mode: "ask"},
		&session.ApprovalParkedEvent{Header: h, Turn: 1, ApprovalID: "ap1", CallID: "c1", Server: "fs", Tool: "fs__read"},
		&session.ApprovalResolvedEvent{Header: h, ApprovalID: "ap1", CallID: "c1", Decision: "approved", By: "user"},
		&session.ToolTaskEvent{Header: h, CallID: "c1", TaskID: "t1", Server: "fs", Status: "working"},
		&session.ElicitationEvent{Header: h, ID: "el1", Server: "fs", Mode: session.ElicitForm, Message: "Which folder?",
			Fields: []session.FormField{{Name: "folder", Kind: session.FieldString, Required: true}}},
		&session.ElicitationAnswerEvent{Header: h, ID: "el1", Server: "fs", Mode: session.ElicitForm, Action: session.ElicitAccept,
			By: "user", Content: map[string]any{"folder": "/notes"}},
		&session.SamplingEvent{Header: h, RequestID: "s1", Server: "fs", Step: session.SamplingAllowed, By: "policy",
			Roles: []string{"user"}, Messages: []string{"sum it up"}},
		&session.SamplingEvent{Header: h, RequestID: "s1", Server: "fs", Step: session.SamplingAnswered, Model: "qwen3:8b", Answer: "a sum"},
		&session.ToolResultEvent{Header: h, Turn: 1, CallID: "c1", Tool: "fs__read", OK: true, Content: "hello"},
		&session.CallRetriedEvent{Header: h, Turn: 1, CallID: "c1", Server: "fs", Tool: "fs__read", Reason: "idempotent"},
		&session.MessageEvent{Header: h, Turn: 1, Role: "tool", Content: "dismissed", ToolCallID: "c9", ToolName: "fs__read"},
		&session.TurnDone{Header: h, Turn: 1, Reason: "done"},
		&session.ResourceUpdatedEvent{Header: h, Server: "fs", URI: "file:///notes.txt"},
		&session.ResourcesChangedEvent{Header: h, Server: "fs"},
		&session.LoginURLEvent{Header: h, Server: "hub", URL: "https://auth.example/authorize?state=s3cr3tstate&code_challenge=x"},
		&session.Notice{Header: h, Text: "a notice"},
		&session.Error{Header: h, Turn: 1, Message: "an error"},
		&session.ModelChanged{Header: h, Model: "llama3.2"},
		&session.CompactionEvent{Header: h, Step: session.CompactStarted, Auto: true, UsedPct: 85, Messages: 4, FirstTurn: 1, LastTurn: 1},
		&session.CompactionEvent{Header: h, Step: session.CompactDone, Messages: 4, FirstTurn: 1, LastTurn: 1,
			Summary: "We read the notes.", Before: 3000, After: 400},
		&session.PromptEvent{Header: h, Turn: 2, Server: "fs", Prompt: "brief", Arguments: map[string]string{"city": "Paris"},
			Messages: []session.PromptShown{{Role: "user", Text: "brief me on Paris"}}},
		&session.Cleared{Header: h},
	}
	want := map[string]string{
		session.TypeSessionStarted:   "started ",
		session.TypeInstructions:     "instructions: none sent to the model",
		session.TypeSettings:         "permissions: mode `ask`",
		session.TypeServerStatus:     "server `fs`: `ready · 3 tools`",
		session.TypeToolsChanged:     "server `fs` now offers 1 tool · removed: `fs__old`",
		session.TypePromptsChanged:   "server `fs` now offers 2 prompts (first listing)",
		session.TypeUserMessage:      "## Turn 1 · you",
		session.TypeAttachment:       "turn 1: attached `file:///notes.txt` of server `fs` (`text`) · the model was given 10 bytes of 10 bytes",
		session.TypeAssistantMessage: "### model",
		session.TypeToolCall:         "tool call `fs__read` on `fs`",
		session.TypePermission:       "decision on `c1`: `parked` by `policy`",
		session.TypeApprovalParked:   "call `c1` waits for approval `ap1`",
		session.TypeApprovalResolved: "approval `ap1` of call `c1`: `approved` by `user`",
		session.TypeToolTask:         "call `c1` as task `t1` on `fs`: `working`",
		session.TypeElicitation:      "server `fs` asked the person (request `el1`): `Which folder?`",
		session.TypeElicitAnswer:     "request `el1` of server `fs`: `accept` by `user`",
		session.TypeSampling:         "server `fs` asked the model for an answer (request `s1`): the model `qwen3:8b` answered",
		session.TypeToolResult:       "result of `c1` (`fs__read`): ok",
		session.TypeCallRetried:      "call `c1` (`fs__read`) run again after a crash",
		session.TypeMessage:          "the model was told of call `c9`",
		session.TypeTurnDone:         "turn 1 ended: `done`",
		session.TypeResourceUpdated:  "server `fs` said resource `file:///notes.txt` changed",
		session.TypeResourcesChanged: "server `fs` said its list of resources changed",
		session.TypeLoginURL:         "server `hub` asked for a login in the browser, at `auth.example`",
		session.TypeNotice:           "notice: `a notice`",
		session.TypeError:            "error: `an error`",
		session.TypeModelChanged:     "model now `llama3.2`",
		session.TypeCompaction:       "compacted turns 1 (4 messages): from here the model saw this summary in their place · prompt ~2.9k → ~400 tokens",
		session.TypePrompt:           "## Turn 2 · you ran prompt `brief` of server `fs`",
		session.TypeCleared:          "## /clear",
	}
	return evs, want
}

// rawEvent is what a transcript showed of an event it had no words for:
// "event TYPE" and the event's JSON.
var rawEvent = regexp.MustCompile("(?m)^event `[a-z_]+`$|\"type\": \"")

// TestExportTellsEveryEventInWords: a session holding one event of every
// kind a log holds (instructions with none sent, a compaction begun and
// done, a login, a sampling request, ...) exports to Markdown as words a
// person reads: no event is left as "event TYPE" and its raw JSON, each
// kind reads as its own sentence, and a login page's address shows its
// host only, never its state. The json export stays the events' wire
// form, one a line.
func TestExportTellsEveryEventInWords(t *testing.T) {
	evs, want := wordsSession()
	kinds := map[string]bool{}
	for _, e := range evs {
		kinds[eventtest.TypeOf(e)] = true
	}
	for _, typ := range session.EventTypes() {
		if _, left := exportLeftOut[typ]; !kinds[typ] && !left {
			t.Errorf("the session holds no %s event: add one to wordsSession, with its words", typ)
		}
	}
	dir := t.TempDir()
	id := "20261202-000000-words0"
	for i, e := range evs {
		*e.Head() = session.Header{Time: time.Unix(int64(i), 0).UTC(), SessionID: id}
	}
	eventtest.WriteEditedLog(t, logFile(dir, id), evs)

	md := export(t, dir, id, session.ExportMarkdown)
	if m := rawEvent.FindAllString(md, -1); len(m) > 0 {
		t.Errorf("the transcript still shows raw events %q:\n%s", m, md)
	}
	for _, typ := range session.EventTypes() {
		if w, ok := want[typ]; ok && !strings.Contains(md, w) {
			t.Errorf("%s: the transcript does not read %q:\n%s", typ, w, md)
		}
	}
	if strings.Contains(md, "s3cr3tstate") {
		t.Errorf("the transcript shows a login page's state:\n%s", md)
	}
	if html := export(t, dir, id, session.ExportHTML); rawEvent.MatchString(strings.ReplaceAll(html, "&#34;", `"`)) ||
		strings.Contains(html, "<p>event <code>") {
		t.Errorf("the html transcript still shows raw events:\n%s", html)
	}
	js := export(t, dir, id, session.ExportJSON)
	if n := strings.Count(js, "\n"); n != len(evs) || !strings.Contains(js, `{"type":"instructions","time":`) {
		t.Errorf("json export: %d lines for %d events, want the wire form a line each:\n%s", n, len(evs), js)
	}
}
