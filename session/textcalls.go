package session

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"strings"

	"github.com/ollama/ollama/api"

	"latch/session/exactjson"
)

// Tool calls written as text.
//
// Small models often write a tool call in their content instead of in
// tool_calls. When a finished reply has no tool_calls, parseTextCalls looks
// at its content (never its thinking) for one of these forms:
//
//	<tool_call>{"name": "fs__read", "arguments": {…}}</tool_call>   (one or more blocks in a row)
//	```json\n{"name": "fs__read", "arguments": {…}}\n```            (or a fence with no language)
//	[TOOL_CALLS] [{"name": "fs__read", "arguments": {…}}]
//	{"name": "fs__read", "arguments": {…}}                          (bare JSON)
//
// The rule, precisely. Let t be the content with surrounding whitespace
// trimmed:
//
//   - t ends with the form: nothing but whitespace comes after it.
//   - Bare JSON counts only when it is the whole of t.
//   - A wrapped form (<tool_call> blocks, a fence, [TOOL_CALLS]) may follow
//     prose, but only when that prose holds no other form's marker
//     (<tool_call>, </tool_call>, ```, [TOOL_CALLS]): an answer that quotes
//     an example, or shows code, is not a call. A fence must open at the
//     start of a line.
//   - The payload of each form is a JSON object, or a non-empty array of
//     them, that parses whole. Each object has exactly two keys: the name,
//     "name" or "function" (a string), and the arguments, "arguments" or
//     "parameters" (an object, or a string holding a JSON object).
//   - Every name is one of the tools offered in the request.
//
// Anything else is no call at all, and the content stays plain text.
// Recovered calls go through the gate like any other call.

// textCallMarkers are the markers of the wrapped forms; prose before a
// wrapped form must hold none of them.
var textCallMarkers = []string{"<tool_call>", "</tool_call>", "```", "[TOOL_CALLS]"}

// parseTextCalls recognizes tool calls written as text in content (see the
// rule above). offered says whether a name is a tool the request offered.
// prose is the text before the form, trimmed: what the reply says besides
// the calls. The calls have no ids.
func parseTextCalls(content string, offered func(name string) bool) (calls []api.ToolCall, prose string, ok bool) {
	t := strings.TrimSpace(content)
	var payloads []string
	switch {
	case strings.HasSuffix(t, "</tool_call>"):
		payloads, prose, ok = taggedForm(t)
	case strings.HasSuffix(t, "```"):
		payloads, prose, ok = fencedForm(t)
	case strings.Contains(t, "[TOOL_CALLS]"):
		i := strings.LastIndex(t, "[TOOL_CALLS]")
		payloads, prose, ok = []string{t[i+len("[TOOL_CALLS]"):]}, t[:i], true
	case strings.HasPrefix(t, "{") || strings.HasPrefix(t, "["):
		payloads, prose, ok = []string{t}, "", true
	}
	if !ok || hasMarker(prose) {
		return nil, "", false
	}
	for _, p := range payloads {
		cs, ok := parsePayload(p, offered)
		if !ok {
			return nil, "", false
		}
		calls = append(calls, cs...)
	}
	for i := range calls {
		calls[i].Function.Index = i
	}
	return calls, strings.TrimSpace(prose), len(calls) > 0
}

// taggedForm splits t, which ends with "</tool_call>", into the payloads
// of its trailing run of <tool_call>…</tool_call> blocks and the prose
// before them.
func taggedForm(t string) (payloads []string, prose string, ok bool) {
	rest := t
	for strings.HasSuffix(rest, "</tool_call>") {
		body := strings.TrimSuffix(rest, "</tool_call>")
		open := strings.LastIndex(body, "<tool_call>")
		if open < 0 {
			return nil, "", false
		}
		payloads = append([]string{body[open+len("<tool_call>"):]}, payloads...)
		rest = strings.TrimRight(body[:open], " \t\r\n")
	}
	return payloads, rest, true
}

// fencedForm splits t, which ends with "```", into the payload of its last
// fenced block (```json or ``` alone, opening at the start of a line) and
// the prose before it.
func fencedForm(t string) (payloads []string, prose string, ok bool) {
	body := strings.TrimSuffix(t, "```")
	open := strings.LastIndex(body, "```")
	if open < 0 {
		return nil, "", false
	}
	prose = body[:open]
	if p := strings.TrimRight(prose, " \t"); p != "" && !strings.HasSuffix(p, "\n") {
		return nil, "", false
	}
	info, payload, found := strings.Cut(body[open+3:], "\n")
	if !found {
		return nil, "", false
	}
	if lang := strings.TrimSpace(info); lang != "" && !strings.EqualFold(lang, "json") {
		return nil, "", false
	}
	return []string{payload}, prose, true
}

func hasMarker(s string) bool {
	for _, m := range textCallMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// parsePayload parses a form's payload: one call object, or a non-empty
// array of them.
func parsePayload(p string, offered func(string) bool) ([]api.ToolCall, bool) {
	raw := bytes.TrimSpace([]byte(p))
	if !json.Valid(raw) {
		return nil, false
	}
	var objs []json.RawMessage
	switch {
	case bytes.HasPrefix(raw, []byte("{")):
		objs = []json.RawMessage{raw}
	case bytes.HasPrefix(raw, []byte("[")):
		if json.Unmarshal(raw, &objs) != nil || len(objs) == 0 {
			return nil, false
		}
	default:
		return nil, false
	}
	calls := make([]api.ToolCall, 0, len(objs))
	for _, o := range objs {
		c, ok := parseCallObject(o, offered)
		if !ok {
			return nil, false
		}
		calls = append(calls, c)
	}
	return calls, true
}

// parseCallObject parses one call object: exactly a name key and an
// arguments key (see the rule above).
func parseCallObject(raw json.RawMessage, offered func(string) bool) (api.ToolCall, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil || len(obj) != 2 {
		return api.ToolCall{}, false
	}
	nameRaw, ok := oneOf(obj, "name", "function")
	if !ok {
		return api.ToolCall{}, false
	}
	argsRaw, ok := oneOf(obj, "arguments", "parameters")
	if !ok {
		return api.ToolCall{}, false
	}
	var name string
	if json.Unmarshal(nameRaw, &name) != nil || name == "" || !offered(name) {
		return api.ToolCall{}, false
	}
	var s string
	if json.Unmarshal(argsRaw, &s) == nil {
		argsRaw = json.RawMessage(strings.TrimSpace(s)) // arguments as a JSON string
	}
	if !bytes.HasPrefix(argsRaw, []byte("{")) || !json.Valid(argsRaw) {
		return api.ToolCall{}, false
	}
	args, err := exactjson.ExactToolArguments(argsRaw)
	if err != nil {
		return api.ToolCall{}, false
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: args}}, true
}

// oneOf returns the value of exactly one of the keys a and b.
func oneOf(obj map[string]json.RawMessage, a, b string) (json.RawMessage, bool) {
	va, okA := obj[a]
	vb, okB := obj[b]
	switch {
	case okA && !okB:
		return va, true
	case okB && !okA:
		return vb, true
	}
	return nil, false
}

// recoverTextCalls turns a finished reply's text into tool calls, when it
// is calls written as text (see parseTextCalls) and the session recovers
// them: each gets a fresh call id, and is marked so that its tool_call
// event says it came from text. history is the assistant message's content
// for the model: the prose around the calls.
func (s *Session) recoverTextCalls(req *api.ChatRequest, r round) (calls []api.ToolCall, history string, ok bool) {
	if !s.textCalls || r.cancelled || r.err != nil || len(r.calls) > 0 || len(req.Tools) == 0 || r.content == "" {
		return nil, "", false
	}
	names := make(map[string]bool, len(req.Tools))
	for _, t := range req.Tools {
		names[t.Function.Name] = true
	}
	calls, history, ok = parseTextCalls(r.content, func(n string) bool { return names[n] })
	if !ok {
		return nil, "", false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range calls {
		calls[i].ID = newCallID()
		s.fromText[calls[i].ID] = true
	}
	return calls, history, true
}

// fromTextCall reports whether the call was recovered from text, once: the
// mark is dropped as it is read.
func (s *Session) fromTextCall(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ok := s.fromText[id]
	delete(s.fromText, id)
	return ok
}

// newCallID is a fresh call id in Ollama's style: "call_" and 8 of
// [a-z0-9].
func newCallID() string {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	var b [8]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "call_" + string(b[:])
}
