package session

import (
	"encoding/json"
	"strings"
)

// maxKeptResult is the most bytes of a gateway client's result (its
// content parts and structured content, as JSON) its tool_result keeps
// for a restart; a larger one comes back after a restart as its text.
const maxKeptResult = 1 << 20

// loggedParts are the fields of a tool_result that keepForClient fills,
// as parkedIn reads them.
type loggedParts struct {
	Parts      json.RawMessage `json:"parts"`
	Structured json.RawMessage `json:"structured_content"`
}

// keepForClient puts on a gateway client's tool_result (a call whose id is
// an invocation id) the result as the server sent it, redacted: every
// content part and the structured content, so that a gateway restarted
// before the client collected it gives back the same result.
func keepForClient(callID string, ev *ToolResultEvent, res *CallResult) {
	if !strings.HasPrefix(callID, gatewayIDPrefix) || res == nil {
		return
	}
	parts, err := json.Marshal(res.Content)
	if err != nil {
		return
	}
	structured, err := json.Marshal(res.Structured)
	if err != nil || len(parts)+len(structured) > maxKeptResult {
		return
	}
	ev.Parts, ev.Structured = res.Content, res.Structured
}

// loggedCallResult is the result a gateway's call gave before a restart,
// from its tool_result: the content parts and structured content as the
// server sent them when they were kept, else the text alone.
func loggedCallResult(r LoggedResult) *CallResult {
	out := &CallResult{Text: r.Content, IsError: r.IsError,
		Content: []map[string]any{{"type": "text", "text": r.Content}}}
	var parts []map[string]any
	if len(r.Parts) > 0 && json.Unmarshal(r.Parts, &parts) == nil && len(parts) > 0 {
		out.Content = parts
	}
	if len(r.Structured) > 0 && string(r.Structured) != "null" {
		var v any
		if json.Unmarshal(r.Structured, &v) == nil {
			out.Structured = v
			if len(parts) == 0 {
				// Kept with it, so none were sent (the log leaves out
				// an empty list).
				out.Content = []map[string]any{}
			}
		}
	}
	return out
}

// GatewayWaiting is how many of the session's calls wait for a person.
func (s *Session) GatewayWaiting() int { return s.approvals.Count() }
