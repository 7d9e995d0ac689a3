package session

import "testing"

// TestLoggedPolicy pins what reaches the log and what is synced before the
// session goes on (docs/ARCHITECTURE.md, "The session log"): decisions, parked approvals and the start
// and end of every call are synced; a tool_call is written but rides on the
// sync of the permission (or the result of a call that never ran) that
// always follows it before anything runs; deltas are not written.
func TestLoggedPolicy(t *testing.T) {
	for _, c := range []struct {
		e           Event
		write, sync bool
	}{
		{&AssistantDelta{}, false, false},
		{&ThinkingDelta{}, false, false},
		{&ToolProgress{}, false, false},
		{&ToolCallEvent{}, true, false},
		{&PermissionEvent{}, true, true},
		{&ApprovalParkedEvent{}, true, true},
		{&ApprovalResolvedEvent{}, true, true},
		{&ToolResultEvent{}, true, true},
		{&MessageEvent{}, true, true},
		{&AssistantMessage{}, true, false},
		{&TurnDone{}, true, false},
		{&SamplingDelta{}, false, false},
		{&SamplingEvent{}, true, true},
	} {
		if w, s := logged(c.e); w != c.write || s != c.sync {
			t.Errorf("logged(%T) = write %v, sync %v; want %v, %v", c.e, w, s, c.write, c.sync)
		}
	}
}
