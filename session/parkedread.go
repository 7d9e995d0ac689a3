package session

import (
	"bytes"
	"encoding/json"

	"latch/session/exactjson"
)

// parkedRead says what readParked keeps of a log's parked calls.
type parkedRead struct {
	// results: the approved calls' results as logged (their content,
	// parts, structured content). Without, a reading still says which
	// approved calls started and ran, and how each ended (IsError,
	// Error): an approved call that ran and failed is not one refused.
	results bool
	// noArgs: the arguments are checked as they are when kept (an object,
	// or null; a line with others is skipped whole) but not kept, for a
	// reader that only asks what waits (HasWaiting).
	noArgs bool
}

// parkedState is the one reading of a log's parked calls, line by line:
// what ParkedCalls, ParkedCallsOf and HasWaiting say all comes from it.
type parkedState struct {
	parkedRead
	sessionID          string
	calls              callList
	byApproval, byCall map[string]int
	why                map[string]parkedWhy // what the permission event that parked a call said, by call id
	// The line being decoded, held here so that each line does not
	// allocate one (decode zeroes it first).
	e parkLineArgs
	// The strings the calls share (their tool, server, digest,
	// description, client), held once: a resumed gateway keeps them
	// for every call waiting.
	shared map[string]string
}

// parkedWhy is what put a call to a person, as its parking permission
// event logged it.
type parkedWhy struct{ mode, rule string }

func newParkedState(sessionID string, how parkedRead) *parkedState {
	return &parkedState{parkedRead: how, sessionID: sessionID, byApproval: map[string]int{}, byCall: map[string]int{},
		why: map[string]parkedWhy{}, shared: map[string]string{}}
}

// same makes *s the copy of its string held in shared.
func (st *parkedState) same(s *string) {
	if v, ok := st.shared[*s]; ok {
		*s = v
	} else {
		st.shared[*s] = *s
	}
}

// argsSpan is a call's arguments as a line holds them, not decoded: the
// bytes of the line (valid while it is), and how many times the key came.
type argsSpan struct {
	raw []byte
	n   int
}

// UnmarshalJSON keeps b (the decoder has checked its syntax before).
func (a *argsSpan) UnmarshalJSON(b []byte) error {
	a.raw, a.n = b, a.n+1
	return nil
}

// parkLineArgs is a ParkLine with its arguments left in the line.
type parkLineArgs struct {
	ParkLine
	Arguments argsSpan `json:"arguments"` // over ParkLine's: the shallower field wins
}

// decode reads a line whole, as ReadParkLine does; with noArgs its
// arguments are checked (an object, or null, as decoding them into a map
// accepts) but not kept. The line is decoded with json.Unmarshal, its
// arguments apart, with their numbers exact, only when they are kept
// (UnmarshalExact's json.Decoder for each line was most of what a reading
// allocated). It decodes into the state's own ParkLine, zeroed first, so
// nothing of the line before is kept.
func (st *parkedState) decode(line []byte) (ParkLine, bool) {
	st.e = parkLineArgs{}
	if json.Unmarshal(line, &st.e) != nil {
		return ParkLine{}, false
	}
	raw := bytes.TrimSpace(st.e.Arguments.raw)
	dup := st.e.Arguments.n > 1
	st.e.Arguments = argsSpan{} // the line's bytes: not kept past it
	switch {
	case dup:
		// The key twice (a hand-edited line): read as ReadParkLine reads
		// it, which decodes the second into the map of the first.
		st.e.ParkLine = ParkLine{}
		if exactjson.UnmarshalExact(line, &st.e.ParkLine) != nil {
			return ParkLine{}, false
		}
		if st.noArgs {
			st.e.ParkLine.Arguments = nil
		}
	case len(raw) == 0 || string(raw) == "null":
	case raw[0] != '{':
		return ParkLine{}, false // not a map's: no call
	case !st.noArgs:
		if exactjson.UnmarshalExact(raw, &st.e.ParkLine.Arguments) != nil {
			return ParkLine{}, false
		}
	}
	return st.e.ParkLine, true
}

// line reads one line of the log. It says whether the line bears on a
// call parked so far, whatever the reading keeps (parkedRead): a
// parking, its decision, the permission that parked a call or let it
// start, a parked call's result. The lines it says no to change nothing
// for any reading, then or later, so a reading of only the lines it said
// yes to (a parkMark's) ends where a reading of them all ends.
func (st *parkedState) line(line []byte) bool {
	if !parkedWants(line, true) {
		return false
	}
	if id, ok := lineCallID(line); ok {
		_, parked := st.byCall[string(id)]
		_, blank := st.byCall[""] // a call with no id: a line without one is its
		if !parked && !blank {
			return false // another call's permission or result
		}
	}
	e, ok := st.decode(line)
	if !ok {
		return false
	}
	switch e.Type {
	case TypeApprovalParked:
		for _, f := range []*string{&e.Client, &e.Tool, &e.Server, &e.Digest, &e.Descr, &e.ClientName} {
			st.same(f)
		}
		why := st.why[e.CallID]
		st.byApproval[e.ApprovalID], st.byCall[e.CallID] = st.calls.n, st.calls.n
		st.calls.add(e.Parking(st.sessionID, ParkLine{Mode: why.mode, Rule: why.rule}))
		delete(st.why, e.CallID)
		return true
	case TypeApprovalResolved:
		i, ok := st.byApproval[e.ApprovalID]
		if ok {
			c := st.calls.at(i)
			c.Decision, c.By, c.Reason = e.Decision, e.By, e.Reason
		}
		return ok
	case TypePermission:
		if e.Decision == "parked" {
			st.same(&e.Mode)
			st.same(&e.Rule)
			st.why[e.CallID] = parkedWhy{mode: e.Mode, rule: e.Rule}
			return true
		}
		i, ok := st.byCall[e.CallID]
		if !ok || e.Decision != "allowed" {
			return false
		}
		if c := st.calls.at(i); c.Decision == "approved" {
			c.Started = true
		}
		return true
	case TypeToolResult:
		i, ok := st.byCall[e.CallID]
		if !ok {
			return false
		}
		c := st.calls.at(i)
		switch {
		case c.Decision == "":
			c.Decision = "answered"
		case c.Started && st.results:
			c.Ran = true
			c.Result = LoggedResult{Content: e.Content, IsError: e.IsError, Error: e.Error,
				Parts: e.Parts, Structured: e.Structured}
		case c.Started:
			// It ran, and how it ended is said (as the index of parked
			// calls keeps it), but not what it gave.
			c.Ran = true
			c.Result = LoggedResult{IsError: e.IsError, Error: e.Error}
		case c.Decision == "approved" && e.Error != "":
			c.Refused = e.Error
		}
		return true
	}
	return false
}

// lineCallID is the call id of a permission or tool_result line that
// cannot be a permission that parks a call, read without decoding the
// line, when its bytes say it for sure: one key that decoding would take
// for call_id (which matches keys without regard to case), written
// plainly, no \u escape in the line and none in the id. ok is false for any other line: it is
// decoded.
func lineCallID(line []byte) (id []byte, ok bool) {
	if bytes.Contains(line, []byte(`"approval_`)) || bytes.Contains(line, []byte(`"parked"`)) ||
		bytes.Contains(line, []byte(`\u`)) {
		return nil, false
	}
	at, n := -1, 0
	for i := 0; ; {
		j := bytes.IndexByte(line[i:], '_')
		if j < 0 {
			break
		}
		i += j + 1
		// "call_id": the underscore at i-1, with "call before it and id" after.
		if i >= 6 && len(line) >= i+3 && bytes.EqualFold(line[i-6:i-1], []byte(`"call`)) &&
			bytes.EqualFold(line[i:i+2], []byte("id")) && line[i+2] == '"' {
			n++
			at = i - 6
		}
	}
	const key = `"call_id":"`
	if n != 1 || !bytes.HasPrefix(line[at:], []byte(key)) {
		return nil, false
	}
	rest := line[at+len(key):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 || bytes.IndexByte(rest[:end], '\\') >= 0 { // an escape: the id is not its bytes
		return nil, false
	}
	return rest[:end], true
}
