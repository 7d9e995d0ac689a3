package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
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
// first, with what became of each: an approved call's Started, Ran and
// Refused, and of its Result whether it failed (IsError, Error), not what
// it gave.
func ParkedCalls(dir string) ([]ParkedCall, error) {
	paths, ids, err := sessionLogs(dir)
	if err != nil {
		return nil, err
	}
	var logs []callList
	for i, p := range paths {
		st, err := readParked(p, ids[i], parkedRead{}, markEvery)
		if err != nil {
			continue // a log being removed, or unreadable: it has nothing to decide
		}
		if st.calls.n > 0 {
			logs = append(logs, st.calls)
		}
	}
	out := joinCalls(logs)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Parked.Before(out[j].Parked) })
	return out, nil
}

// ParkedCallsOf reads the calls parked in one session's log, with what
// became of each and their logged results.
func ParkedCallsOf(dir, sessionID string) ([]ParkedCall, error) {
	st, err := readParked(filepath.Join(dir, sessionID+".jsonl"), sessionID, parkedRead{results: true}, markEvery)
	return st.calls.all(), err
}

// HasWaiting says whether a call parked in one session's log still
// waits for a decision, as ParkedCallsOf's Waiting says: the same
// reading, which checks each call's arguments but does not keep them.
// (Reading every call whole, with its arguments, to choose the run a
// restarted gateway resumes, made as much garbage as resuming it; latch
// serve's collector lets that grow to five times what is live.)
func HasWaiting(dir, sessionID string) (bool, error) {
	st, err := readParked(filepath.Join(dir, sessionID+".jsonl"), sessionID, parkedRead{noArgs: true}, markEvery)
	if err != nil {
		return false, err
	}
	return st.calls.any(ParkedCall.Waiting), nil
}

// MarkParked reads the parked calls of a session's log to its end and
// keeps, beside it, which of its lines bear on them (parkMark), so that
// the next reading of them reads only those and what the log gains
// after. A gateway does it as it stops, so that its next start costs the
// same however long the log grew.
func MarkParked(dir, sessionID string) error {
	_, err := readParked(filepath.Join(dir, sessionID+".jsonl"), sessionID, parkedRead{noArgs: true}, 1)
	return err
}

// parkedWants says whether readParked reads a line of the log: a parking
// or its decision, a result, the permission that parked a call, and with
// results the one that let an approved call start.
func parkedWants(line []byte, results bool) bool {
	return bytes.Contains(line, []byte(`"approval_`)) || bytes.Contains(line, []byte(`"tool_result"`)) ||
		(bytes.Contains(line, []byte(`"permission"`)) && (bytes.Contains(line, []byte(`"parked"`)) ||
			results && bytes.Contains(line, []byte(`"allowed"`))))
}

// readParked reads the parked calls of one log, and with results what
// the approved ones gave: the lines its mark names, if it has one that
// fits, then the rest. It keeps a new mark when it read at least
// markAfter bytes past the last (markEvery, but for MarkParked). Its
// state is never nil: with an error, it holds what was read.
func readParked(path, sessionID string, how parkedRead, markAfter int64) (*parkedState, error) {
	st := newParkedState(sessionID, how)
	f, err := os.Open(path)
	if err != nil {
		return st, err
	}
	defer func() { _ = f.Close() }() // read only
	fi, err := f.Stat()
	if err != nil {
		return st, err
	}
	var marked []span
	from := int64(0)
	if m, ok := readMark(path); ok && m.fits(f, fi) {
		if st.replay(f, m) {
			marked, from = m.lines, m.size
		} else {
			st = newParkedState(sessionID, how)
		}
	}
	br := bufio.NewReaderSize(io.NewSectionReader(f, from, 1<<62), 64<<10)
	off, end := from, from // where the next line starts; where the last whole line ends
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
		// A last line without its newline (being written, or torn) is
		// read, as the log's reader reads it, but not marked: the next
		// reading reads it again.
		if st.line(line) && err == nil {
			marked = append(marked, span{off, int64(len(line))})
		}
		off += int64(len(line))
		if err == nil {
			end = off
			continue
		}
		if err == io.EOF {
			if end-from >= markAfter {
				writeMark(path, f, end, marked)
			}
			return st, nil
		}
		return st, err
	}
}
