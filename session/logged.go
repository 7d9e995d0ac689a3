package session

import (
	"path/filepath"

	"github.com/ollama/ollama/api"
)

// TypeMessage is a conversation entry as sent to the model, logged so that
// a resumed session rebuilds exactly what the model saw.
const TypeMessage = "message"

// MessageEvent is one entry of the conversation history.
type MessageEvent struct {
	Header
	Turn       int              `json:"turn"`
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	Thinking   string           `json:"thinking,omitempty"`
	ToolCalls  []ToolCallRecord `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
	// Images are a message's attached images (attach.go), as sent.
	Images []api.ImageData `json:"images,omitempty"`
}

func (e *MessageEvent) message() api.Message {
	return api.Message{Role: e.Role, Content: e.Content, Thinking: e.Thinking, ToolCalls: apiCalls(e.ToolCalls),
		ToolName: e.ToolName, ToolCallID: e.ToolCallID, Images: e.Images}
}

// StateDir is where session logs live: $XDG_STATE_HOME/latch/sessions, or
// ~/.local/state/latch/sessions.
func StateDir(getenv func(string) string) string {
	base := getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		base = filepath.Join(getenv("HOME"), ".local", "state")
	}
	return filepath.Join(base, "latch", "sessions")
}

// logged says whether an event goes to the log, and whether it is synced.
func logged(e Event) (write, sync bool) {
	if t, ok := e.(*ToolTaskEvent); ok {
		return !t.polled, t.durable() // a task's start and end, synced (calltask.go)
	}
	if r, ok := e.(*ToolResultEvent); ok {
		// A gateway client's result is written before the client is
		// answered and synced soon after (SyncSoon): its "allowed" was
		// synced before it ran, so a restart never runs it again, and a
		// kill -9 loses no written line; only a power loss within
		// eventlog.SoonDelay can lose the result.
		return true, !r.soon
	}
	switch e.(type) {
	case *AssistantDelta, *ThinkingDelta, *ToolProgress, *SamplingDelta, *CompactionDelta:
		return false, false
	case *ToolCallEvent:
		// Always followed by a synced event (permission, or the result of
		// a call that never ran) before anything runs: that sync covers it.
		return true, false
	case *PermissionEvent, *ApprovalParkedEvent, *ApprovalResolvedEvent, *MessageEvent, *SamplingEvent:
		return true, true
	}
	return true, false
}
