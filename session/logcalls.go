package session

import (
	"sort"

	"github.com/ollama/ollama/api"
)

// ToolCallRecord is a model's tool call as the session log keeps it: the
// wire shape of Ollama's, in types every redaction can walk. Ollama's
// arguments keep their values out of reach of reflection, so a credential
// the model echoed into a call would pass the session's one way out
// untouched; in a map it is found like any other string.
type ToolCallRecord struct {
	ID       string             `json:"id,omitempty"`
	Function ToolCallRecordFunc `json:"function"`
}

// ToolCallRecordFunc is the function part of a ToolCallRecord.
type ToolCallRecordFunc struct {
	Index     int            `json:"index"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// recordCalls turns a message's tool calls into the log's form.
func recordCalls(calls []api.ToolCall) []ToolCallRecord {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCallRecord, len(calls))
	for i, c := range calls {
		out[i] = ToolCallRecord{ID: c.ID, Function: ToolCallRecordFunc{Index: c.Function.Index,
			Name: c.Function.Name, Arguments: c.Function.Arguments.ToMap()}}
	}
	return out
}

// apiCalls turns logged tool calls back into Ollama's form (the arguments
// in the order of their names: the log's map does not keep the model's).
func apiCalls(recs []ToolCallRecord) []api.ToolCall {
	if len(recs) == 0 {
		return nil
	}
	out := make([]api.ToolCall, len(recs))
	for i, r := range recs {
		args := api.NewToolCallFunctionArguments()
		keys := make([]string, 0, len(r.Function.Arguments))
		for k := range r.Function.Arguments {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			args.Set(k, r.Function.Arguments[k])
		}
		out[i] = api.ToolCall{ID: r.ID, Function: api.ToolCallFunction{Index: r.Function.Index,
			Name: r.Function.Name, Arguments: args}}
	}
	return out
}
