package parkindex

import (
	"database/sql"
	"sort"
	"strings"
	"time"

	"latch/session"
	"latch/session/exactjson"
)

// callColumns are the columns scanCall reads, in its order.
const callColumns = `session, approval_id, call_id, client, caller, caller_verified, tool, server, digest, description,
	arguments, parked, expires, mode, rule, decision, decided_by, reason, started, ran, is_error, error, refused`

// Waiting is every call that waits for a decision, oldest first (the
// order logged, for calls parked at the same moment), as of the last
// CatchUp.
func (x *Index) Waiting() ([]session.ParkedCall, error) {
	return x.calls("SELECT " + callColumns + " FROM calls WHERE decision = '' ORDER BY parked, id")
}

// listColumns are the columns of a call that a list of the waiting calls
// shows (WaitingList), in scanListed's order.
const listColumns = `session, approval_id, call_id, client, caller, caller_verified, tool, server, arguments, parked, expires`

// WaitingList is Waiting with only what a list of the waiting calls shows
// and checks filled in: the session, the ids, the client (and Caller),
// the tool and its server, the arguments, when it parked and expires.
// The rest of each call is left zero; Find gives all of it. It reads a
// third of the columns, for latch approvals at a backlog of thousands.
func (x *Index) WaitingList() ([]session.ParkedCall, error) {
	rows, err := x.db.Query("SELECT " + listColumns + " FROM calls WHERE decision = '' ORDER BY parked, id")
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	var out []session.ParkedCall
	for rows.Next() {
		var p session.ParkedCall
		var args string
		var parked, expires int64
		if err := rows.Scan(&p.Session, &p.ApprovalID, &p.CallID, &p.Client, &p.Caller.Name, &p.Caller.Verified, &p.Tool,
			&p.Server, &args, &parked, &expires); err != nil {
			return nil, err
		}
		if err := fill(&p, args, parked, expires); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// fill decodes a call's arguments and times as stored.
func fill(p *session.ParkedCall, args string, parked, expires int64) error {
	if args != "" {
		var err error
		if p.Arguments, err = exactjson.DecodeArguments([]byte(args)); err != nil {
			return err
		}
	}
	p.Parked = time.Unix(0, parked)
	if expires != 0 {
		p.Expires = time.Unix(0, expires)
	}
	return nil
}

// Find is every call whose invocation id or approval id is id, in the
// order logged, waiting or decided, as of the last CatchUp. A call's
// Result holds whether it failed (IsError, Error), never its content:
// the index keeps no results.
func (x *Index) Find(id string) ([]session.ParkedCall, error) {
	return x.calls(findQuery, id, id)
}

// findQuery is Find's: SQLite answers its OR from the two indexes
// calls_call and calls_approval_id, without reading the whole table.
const findQuery = "SELECT " + callColumns + " FROM calls WHERE call_id = ? OR approval_id = ? ORDER BY id"

// findBatch is how many ids one query of CallsOf asks for: well under
// SQLite's bound on a statement's parameters.
const findBatch = 500

// CallsOf is the calls of the session sessionID whose invocation ids are
// in callIDs, in the order logged, waiting or decided, as of the last
// CatchUp; as Find, a call's Result holds only whether it failed. It
// reads them through the (session, call_id) index, a few hundred ids a
// query: what became of a bulk decision of 1,000 calls is one look-up,
// where 1,000 Finds were 1,000 queries.
func (x *Index) CallsOf(sessionID string, callIDs []string) ([]session.ParkedCall, error) {
	type row struct {
		id int64
		p  session.ParkedCall
	}
	var found []row
	for len(callIDs) > 0 {
		n := min(len(callIDs), findBatch)
		args := make([]any, 0, n+1)
		args = append(args, sessionID)
		for _, id := range callIDs[:n] {
			args = append(args, id)
		}
		callIDs = callIDs[n:]
		rows, err := x.db.Query("SELECT id, "+callColumns+" FROM calls WHERE session = ? AND call_id IN (?"+
			strings.Repeat(", ?", n-1)+")", args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r row
			if r.p, err = scanCall(rows, &r.id); err != nil {
				break
			}
			found = append(found, r)
		}
		if err == nil {
			err = rows.Err()
		}
		_ = rows.Close() // read only
		if err != nil {
			return nil, err
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].id < found[j].id })
	out := make([]session.ParkedCall, len(found))
	for i, r := range found {
		out[i] = r.p
	}
	return out, nil
}

// calls runs a query of callColumns.
func (x *Index) calls(q string, args ...any) ([]session.ParkedCall, error) {
	rows, err := x.db.Query(q, args...)
	if err != nil {
		return nil, err
	}
	defer func() { _ = rows.Close() }() // read only
	var out []session.ParkedCall
	for rows.Next() {
		p, err := scanCall(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// scanCall reads a row of callColumns, after the columns into first.
func scanCall(rows *sql.Rows, first ...any) (session.ParkedCall, error) {
	var p session.ParkedCall
	var args string
	var parked, expires int64
	err := rows.Scan(append(first, &p.Session, &p.ApprovalID, &p.CallID, &p.Client, &p.Caller.Name, &p.Caller.Verified, &p.Tool,
		&p.Server, &p.Digest, &p.Description, &args, &parked, &expires, &p.Mode, &p.Rule, &p.Decision, &p.By, &p.Reason,
		&p.Started, &p.Ran, &p.Result.IsError, &p.Result.Error, &p.Refused)...)
	if err != nil {
		return p, err
	}
	return p, fill(&p, args, parked, expires)
}
