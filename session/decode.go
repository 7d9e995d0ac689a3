package session

import (
	"bytes"
	"encoding/json"
	"net/http"

	"latch/session/exactjson"
)

// ExactToolCalls wraps the HTTP transport of an Ollama API client so that
// the tool calls of a session's chat keep their arguments' numbers exact
// (json.Number). Other requests pass through untouched.
func ExactToolCalls(rt http.RoundTripper) http.RoundTripper { return exactjson.ExactToolCalls(rt) }

// DecodeArguments decodes a call's arguments, a JSON object, with its
// numbers exact (json.Number) and nested objects as map[string]any.
func DecodeArguments(raw []byte) (map[string]any, error) { return exactjson.DecodeArguments(raw) }

// decodeEvent decodes one logged event: a call's arguments with their
// numbers exact (a line without them the plain, cheaper way).
func decodeEvent(line []byte, e Event) error {
	if bytes.Contains(line, []byte(`"arguments":`)) {
		return exactjson.UnmarshalExact(line, e)
	}
	return json.Unmarshal(line, e)
}
