package session

import (
	"reflect"
	"testing"
)

// lineCallID reads a line's call id only where decoding it would read
// the same, and says so; else the line is decoded.
func TestLineCallID(t *testing.T) {
	for _, c := range []struct {
		line, id string
		ok       bool
	}{
		{`{"type":"tool_result","call_id":"gw_1","content":"x"}`, "gw_1", true},
		{`{"type":"permission","call_id":"gw_1","decision":"allowed"}`, "gw_1", true},
		{`{"type":"permission","call_id":"gw_1","decision":"parked"}`, "", false},                      // may park a call
		{`{"type":"approval_resolved","call_id":"gw_1","approval_id":"a1"}`, "", false},                // decoded always
		{`{"type":"tool_result","call_id":"gw_\"1","content":"x"}`, "", false},                         // an escape in the id
		{`{"type":"tool_result","call_id":"gw_1","content":"\u003c"}`, "", false},                      // an escape in the line
		{`{"type":"tool_result","Call_ID":"gw_2","structured_content":{"call_id":"gw_1"}}`, "", false}, // two keys
		{`{"type":"tool_result","call_id" : "gw_1"}`, "", false},                                       // not written plainly
		{`{"type":"tool_result","content":"x"}`, "", false},                                            // no call id
	} {
		id, ok := lineCallID([]byte(c.line))
		if ok != c.ok || string(id) != c.id {
			t.Errorf("%s: %q, %v; want %q, %v", c.line, id, ok, c.id, c.ok)
		}
	}
}

// A reading decodes a line as ReadParkLine does, its arguments apart:
// the same lines taken, the same fields, numbers exact; with noArgs the
// same lines taken, no arguments kept.
func TestDecodeAsReadParkLine(t *testing.T) {
	const head = `{"type":"approval_parked","approval_id":"a1","call_id":"gw_1","tool":"t"`
	for _, rest := range []string{
		`,"arguments":{"n":12345678901234567890,"s":"x","o":{"f":1.50}}}`,
		`,"arguments":null}`,
		`}`,
		`,"arguments": { } }`,
		`,"arguments":"x"}`,
		`,"arguments":[1]}`,
		`,"arguments":7}`,
		`,"Arguments":{"a":1}}`,
		`,"arguments":{"a":1},"arguments":{"b":2}}`,
		`,"arguments":{"a":1},"arguments":"x"}`,
		`,"arguments":"x","arguments":{"a":1}}`,
		`,"arguments":{"a":1},"arguments":null}`,
		`,"arguments":{"a":1}} trailing`,
		`,"arguments":{"a":1},"is_error":"no"}`,
	} {
		line := []byte(head + rest + "\n")
		want, wantOK := ReadParkLine(line)
		for _, noArgs := range []bool{false, true} {
			st := newParkedState("s", parkedRead{noArgs: noArgs})
			got, ok := st.decode(line)
			w := want
			if noArgs {
				w.Arguments = nil
			}
			if ok != wantOK || !reflect.DeepEqual(got, w) {
				t.Errorf("noArgs %v: %s\n got %v %#v\nwant %v %#v", noArgs, line, ok, got.Arguments, wantOK, w.Arguments)
			}
		}
	}
}
