package session

import (
	"encoding/json"
	"math"
	"strings"
)

// maxKeptResult is the most bytes of a gateway client's result (its
// content parts and structured content, as JSON) its tool_result keeps
// for a restart; a larger one comes back after a restart as its text.
const maxKeptResult = 1 << 20

// loggedParts are the fields of a tool_result that keepForClient fills,
// as readParked reads them.
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
	if n, ok := jsonBound(res.Content, maxKeptResult); ok {
		if m, ok := jsonBound(res.Structured, maxKeptResult-n); ok && n+m <= maxKeptResult {
			// Small for sure, and of values that always encode: kept
			// without encoding it here only to measure it.
			ev.Parts, ev.Structured = res.Content, res.Structured
			return
		}
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

// jsonBound is at least as many bytes as json.Marshal(v) gives, for a
// value of the kinds a result is made of (decoded JSON: strings, finite
// float64s, bools, nil, and maps and slices of them), which always
// encode; not ok for any other kind, or once the bound passes budget.
// A string's bound is six bytes a byte and its quotes: \u00XX, the
// longest escape json.Marshal writes for a byte.
func jsonBound(v any, budget int) (int, bool) {
	n := 0
	switch v := v.(type) {
	case nil:
		n = 4
	case bool:
		n = 5
	case string:
		n = 2 + 6*len(v)
	case float64:
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return 0, false
		}
		n = 32
	case map[string]any:
		n = 4 // {} or null
		for k, e := range v {
			m, ok := jsonBound(e, budget-n)
			if !ok {
				return 0, false
			}
			n += 2 + 6*len(k) + 2 + m
			if n > budget {
				return 0, false
			}
		}
	case []any:
		return listBound(v, budget)
	case []map[string]any:
		return listBound(v, budget)
	default:
		return 0, false
	}
	return n, n <= budget
}

// listBound is jsonBound of a list.
func listBound[E any](list []E, budget int) (int, bool) {
	n := 4 // [] or null
	for _, e := range list {
		m, ok := jsonBound(e, budget-n)
		if !ok {
			return 0, false
		}
		n += m + 1
		if n > budget {
			return 0, false
		}
	}
	return n, true
}
