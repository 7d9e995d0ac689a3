// Package exactjson keeps the numbers of a tool call's arguments exactly
// as they were written: decoded here a number is a json.Number, never a
// float64, whether the call comes from the model's stream (ExactToolCalls,
// which the session wraps around the Ollama client's transport), a call
// written as text, or a line of the session log. It imports only the
// Ollama API's types; never latch/session.
package exactjson

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/ollama/ollama/api"
)

// A call's arguments keep their numbers exactly as they were written:
// decoded here, a number in an argument is a json.Number (its literal
// text), never a float64, so 9007199254740993 is not rounded to
// 9007199254740992 on its way to the gate, the log, the approval screens
// and the server, and 1.0 is sent as 1.0. encoding/json writes a
// json.Number back as its literal.

// errTrailing: more than one JSON value where one was expected.
var errTrailing = errors.New("invalid JSON: data after the top-level value")

// UnmarshalExact is json.Unmarshal with every number that lands in an
// interface value (an argument's) kept as a json.Number.
func UnmarshalExact(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	return endOf(d, data)
}

// endOf fails unless only JSON white space follows what d decoded.
func endOf(d *json.Decoder, data []byte) error {
	if len(bytes.Trim(data[d.InputOffset():], " \t\r\n")) != 0 {
		return errTrailing
	}
	return nil
}

// DecodeArguments decodes a call's arguments, a JSON object, with its
// numbers exact (json.Number) and nested objects as map[string]any.
func DecodeArguments(raw []byte) (map[string]any, error) {
	var m map[string]any
	if err := UnmarshalExact(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("the arguments are not a JSON object")
	}
	return m, nil
}

// ExactToolArguments decodes a JSON object into Ollama's ordered
// arguments, keeping the keys' order and every number exact (Ollama's own
// decoding turns them into float64).
func ExactToolArguments(raw []byte) (api.ToolCallFunctionArguments, error) {
	args := api.NewToolCallFunctionArguments()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return args, errors.New("the arguments are not a JSON object")
	}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return args, err
		}
		key, _ := t.(string)
		var v any
		if err := d.Decode(&v); err != nil {
			return args, err
		}
		args.Set(key, v)
	}
	if _, err := d.Token(); err != nil { // the closing brace
		return args, err
	}
	return args, endOf(d, raw)
}
