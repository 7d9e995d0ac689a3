package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"latch/permissions"
	"latch/session/exactjson"
)

// ParkedCall is a call parked in a session's log, and what became of it,
// as latch approvals lists it and latch approve checks it.
type ParkedCall struct {
	Session    string
	ApprovalID string
	CallID     string                 // a gateway's invocation id ("gw_…"), or the model's call id
	Client     string                 // the MCP client of a gateway's call, as a person reads it; "" for the chat's
	Caller     permissions.CallClient // the client as the config names it, for the rules
	Tool       string
	Arguments  map[string]any // as logged: redacted
	Parked     time.Time
	Expires    time.Time // a gateway's call stops waiting then; zero for the chat's
	// Decision is "" while it waits, then "approved", "rejected",
	// "expired", "withdrawn" (by its client: a gateway's task cancelled), or
	// "answered" (its turn ended without a decision).
	Decision string
	By       string // who decided
	Reason   string

	Server      string // the tool's server
	Digest      string // the tool's definition digest when the call parked
	Description string // and its description
	// Started: an approved call was allowed to run ("allowed" is logged
	// before it starts). Ran: its tool_result is logged: Result.
	Started, Ran bool
	Result       LoggedResult
	// Refused says why an approved call was refused all the same, before
	// it started (a rule of the moment denies it, its tool changed): it
	// never runs.
	Refused string
	// Mode and Rule are what put the call to a person, as its parking
	// permission event logged them: the mode ("approve"), and the rule
	// that asked, if one did.
	Mode, Rule string
}

// LoggedResult is a call's result as its tool_result logged it.
type LoggedResult struct {
	Content string // the text, as the model would be given it (capped)
	IsError bool   // the tool reported failure
	Error   string // why the call gave no result
	// Parts and Structured are a gateway client's result as the server
	// sent it, as logged (JSON; empty when not logged): see
	// loggedCallResult.
	Parts, Structured json.RawMessage
}

// Waiting says whether the call still waits for a decision.
func (p ParkedCall) Waiting() bool { return p.Decision == "" }

// Outcome says what became of a decided call, and who decided, in
// words: "approved by alice on /dev/pts/3 (reason)". Not sanitized: the
// caller shows it.
func (p ParkedCall) Outcome() string {
	s := p.Decision
	if p.By != "" && p.Decision != "expired" {
		s += " by " + p.By
	}
	if p.Reason != "" {
		s += " (" + p.Reason + ")"
	}
	return s
}

// ParkLine is the part of a logged event that bears on a parked call,
// as ParkedCalls reads it (and the index of parked calls, parkindex).
type ParkLine struct {
	Type       string         `json:"type"`
	Time       time.Time      `json:"time"`
	ApprovalID string         `json:"approval_id"`
	CallID     string         `json:"call_id"`
	Client     string         `json:"client"`
	Tool       string         `json:"tool"`
	Arguments  map[string]any `json:"arguments"`
	Expires    string         `json:"expires"`
	Decision   string         `json:"decision"`
	By         string         `json:"by"`
	Reason     string         `json:"reason"`
	Server     string         `json:"server"`
	Digest     string         `json:"digest"`
	Descr      string         `json:"description"`
	Content    string         `json:"content"`
	IsError    bool           `json:"is_error"`
	Error      string         `json:"error"`
	loggedParts
	Mode       string `json:"mode"`
	Rule       string `json:"rule"`
	ClientName string `json:"client_name"`
	ClientVer  bool   `json:"client_verified"`
}

// ReadParkLine reads one line of a session log that bears on a parked
// call: a parking or its decision, a result, a permission event. ok is
// false for any other line, and for one that does not decode whole.
func ReadParkLine(line []byte) (e ParkLine, ok bool) {
	if !parkedWants(line, true) || exactjson.UnmarshalExact(line, &e) != nil {
		return ParkLine{}, false
	}
	return e, true
}

// Parking is the call a line of type approval_parked parks, put to a
// person by why (its permission event, "parked"; zero if not logged).
func (e ParkLine) Parking(sessionID string, why ParkLine) ParkedCall {
	exp, _ := time.Parse(time.RFC3339Nano, e.Expires)
	return ParkedCall{Session: sessionID, ApprovalID: e.ApprovalID, CallID: e.CallID,
		Client: e.Client, Tool: e.Tool, Arguments: e.Arguments, Parked: e.Time, Expires: exp,
		Server: e.Server, Digest: e.Digest, Description: e.Descr, Mode: why.Mode, Rule: why.Rule,
		Caller: permissions.CallClient{Name: e.ClientName, Verified: e.ClientVer}}
}

// ParkedCalls reads every call parked in the session logs in dir, oldest
// first, with what became of each.
func ParkedCalls(dir string) ([]ParkedCall, error) {
	paths, ids, err := sessionLogs(dir)
	if err != nil {
		return nil, err
	}
	var out []ParkedCall
	for i, p := range paths {
		calls, err := parkedIn(p, ids[i], false)
		if err != nil {
			continue // a log being removed, or unreadable: it has nothing to decide
		}
		out = append(out, calls...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Parked.Before(out[j].Parked) })
	return out, nil
}

// ParkedCallsOf reads the calls parked in one session's log, with what
// became of each and, with results set, their logged results.
func ParkedCallsOf(dir, sessionID string) ([]ParkedCall, error) {
	return parkedIn(filepath.Join(dir, sessionID+".jsonl"), sessionID, true)
}

// HasWaiting says whether a call parked in one session's log still
// waits for a decision, as ParkedCallsOf's Waiting says, without reading
// the calls: only the parkings, their decisions and the results are read,
// each for its type and ids. (Reading every call whole, with its
// arguments, to choose the run a restarted gateway resumes, made as
// much garbage as resuming it; latch serve's collector lets that grow
// to five times what is live.)
func HasWaiting(dir, sessionID string) (bool, error) {
	f, err := os.Open(filepath.Join(dir, sessionID+".jsonl"))
	if err != nil {
		return false, err
	}
	defer func() { _ = f.Close() }() // read only
	var decisions []string
	byApproval, byCall := map[string]int{}, map[string]int{}
	br := bufio.NewReaderSize(f, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull || long != nil {
			// A line longer than the buffer: kept whole.
			long = append(long, line...)
			if err == bufio.ErrBufferFull {
				continue
			}
			line, long = long, nil
		}
		if bytes.Contains(line, []byte(`"approval_`)) || bytes.Contains(line, []byte(`"tool_result"`)) {
			var e struct {
				Type       string `json:"type"`
				ApprovalID string `json:"approval_id"`
				CallID     string `json:"call_id"`
				Decision   string `json:"decision"`
			}
			if json.Unmarshal(line, &e) == nil {
				switch e.Type {
				case TypeApprovalParked:
					byApproval[e.ApprovalID], byCall[e.CallID] = len(decisions), len(decisions)
					decisions = append(decisions, "")
				case TypeApprovalResolved:
					if i, ok := byApproval[e.ApprovalID]; ok {
						decisions[i] = e.Decision
					}
				case TypeToolResult:
					if i, ok := byCall[e.CallID]; ok && decisions[i] == "" {
						decisions[i] = "answered"
					}
				}
			}
		}
		if err == io.EOF {
			return slices.Contains(decisions, ""), nil
		}
		if err != nil {
			return false, err
		}
	}
}

// parkedWants says whether parkedIn reads a line of the log: a parking
// or its decision, a result, the permission that parked a call, and with
// results the one that let an approved call start.
func parkedWants(line []byte, results bool) bool {
	return bytes.Contains(line, []byte(`"approval_`)) || bytes.Contains(line, []byte(`"tool_result"`)) ||
		(bytes.Contains(line, []byte(`"permission"`)) && (bytes.Contains(line, []byte(`"parked"`)) ||
			results && bytes.Contains(line, []byte(`"allowed"`))))
}

// parkedIn reads the parked calls of one log, and with results what
// became of the approved ones.
func parkedIn(path, sessionID string, results bool) ([]ParkedCall, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	var calls []ParkedCall
	byApproval, byCall := map[string]int{}, map[string]int{}
	why := map[string]ParkLine{} // the permission event that parked a call, by call id
	// The strings the calls share (their tool, server, digest,
	// description, client), held once: a resumed gateway keeps them
	// for every call waiting.
	shared := map[string]string{}
	same := func(s *string) {
		if v, ok := shared[*s]; ok {
			*s = v
		} else {
			shared[*s] = *s
		}
	}
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if parkedWants(line, results) {
			var e ParkLine
			if exactjson.UnmarshalExact(line, &e) == nil {
				switch e.Type {
				case TypeApprovalParked:
					for _, f := range []*string{&e.Client, &e.Tool, &e.Server, &e.Digest, &e.Descr, &e.ClientName} {
						same(f)
					}
					byApproval[e.ApprovalID], byCall[e.CallID] = len(calls), len(calls)
					calls = append(calls, e.Parking(sessionID, why[e.CallID]))
					delete(why, e.CallID)
				case TypeApprovalResolved:
					if i, ok := byApproval[e.ApprovalID]; ok {
						calls[i].Decision, calls[i].By, calls[i].Reason = e.Decision, e.By, e.Reason
					}
				case TypePermission:
					if e.Decision == "parked" {
						same(&e.Mode)
						same(&e.Rule)
						why[e.CallID] = e
					}
					if i, ok := byCall[e.CallID]; ok && e.Decision == "allowed" && calls[i].Decision == "approved" {
						calls[i].Started = true
					}
				case TypeToolResult:
					i, ok := byCall[e.CallID]
					switch {
					case !ok:
					case calls[i].Decision == "":
						calls[i].Decision = "answered"
					case calls[i].Started:
						calls[i].Ran = true
						calls[i].Result = LoggedResult{Content: e.Content, IsError: e.IsError, Error: e.Error,
							Parts: e.Parts, Structured: e.Structured}
					case calls[i].Decision == "approved" && e.Error != "":
						calls[i].Refused = e.Error
					}
				}
			}
		}
		if err == io.EOF {
			return calls, nil
		}
		if err != nil {
			return calls, err
		}
	}
}
