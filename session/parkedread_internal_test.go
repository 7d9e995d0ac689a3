package session

import "testing"

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
