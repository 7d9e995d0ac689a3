package session

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// The parts of a token's line as Ollama writes it (json.Marshal of an
// api.ChatResponse with only these fields set):
//
//	{"model":"M","created_at":"T","message":{"role":"assistant","content":"C"},"done":false}
//
// with ,"thinking":"H" after the content when the token is thinking.
var (
	tokenModel    = []byte(`{"model":`)
	tokenAt       = []byte(`,"created_at":`)
	tokenContent  = []byte(`,"message":{"role":"assistant","content":`)
	tokenThinking = []byte(`,"thinking":`)
	tokenEnd      = []byte(`},"done":false}`)
)

// tokenLine decodes a line of exactly that form, as json.Unmarshal
// decodes it into an api.ChatResponse; ok is false for any other line
// (the last line with its figures, a tool call, an error, other spacing,
// other keys or order, a string that is not valid JSON, a time that does
// not parse), which chatLine then decodes in full.
//
// A reply is thousands of such lines, and encoding/json read each twice
// over (the whole line, then the message again in api.Message's
// UnmarshalJSON): about a seventh of the chat's CPU over a reply. The
// strings are taken as they are when they hold no escape and are valid
// UTF-8 (what json.Unmarshal does with them too); one with an escape is
// decoded by json.Unmarshal alone, and the time by the method
// json.Unmarshal calls, so the result is the same.
func tokenLine(line []byte) (r api.ChatResponse, ok bool) {
	rest, ok := bytes.CutPrefix(line, tokenModel)
	if !ok {
		return r, false
	}
	model, rest, ok := jsonString(rest)
	if !ok {
		return r, false
	}
	if rest, ok = bytes.CutPrefix(rest, tokenAt); !ok {
		return r, false
	}
	at, rest, ok := jsonString(rest)
	if !ok {
		return r, false
	}
	if rest, ok = bytes.CutPrefix(rest, tokenContent); !ok {
		return r, false
	}
	content, rest, ok := jsonString(rest)
	if !ok {
		return r, false
	}
	var thinking []byte
	if after, has := bytes.CutPrefix(rest, tokenThinking); has {
		if thinking, rest, ok = jsonString(after); !ok {
			return r, false
		}
	}
	if !bytes.Equal(rest, tokenEnd) {
		return r, false
	}
	if r.Model, ok = unquote(model); !ok {
		return r, false
	}
	if r.CreatedAt.UnmarshalJSON(at) != nil {
		return r, false
	}
	r.Message.Role = "assistant"
	if r.Message.Content, ok = unquote(content); !ok {
		return r, false
	}
	if thinking != nil {
		if r.Message.Thinking, ok = unquote(thinking); !ok {
			return r, false
		}
	}
	return r, true
}

// jsonString splits b after the JSON string it starts with: the string
// with its quotes, and the rest. ok is false when b does not start with
// one (no quote, no closing quote, a control character in it).
func jsonString(b []byte) (str, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '\\':
			i++
		case c == '"':
			return b[:i+1], b[i+1:], true
		case c < ' ':
			return nil, nil, false
		}
	}
	return nil, nil, false
}

// unquote is the value of the JSON string q (quotes included), as
// json.Unmarshal gives it.
func unquote(q []byte) (string, bool) {
	inner := q[1 : len(q)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(q, &s) != nil {
		return "", false
	}
	return s, true
}
