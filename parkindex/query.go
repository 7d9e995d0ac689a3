package parkindex

import (
	"database/sql"
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

// Find is every call whose invocation id or approval id is id, in the
// order logged, waiting or decided, as of the last CatchUp. A call's
// Result holds whether it failed (IsError, Error), never its content:
// the index keeps no results.
func (x *Index) Find(id string) ([]session.ParkedCall, error) {
	return x.calls("SELECT "+callColumns+" FROM calls WHERE call_id = ? OR approval_id = ? ORDER BY id", id, id)
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

// scanCall reads a row of callColumns.
func scanCall(rows *sql.Rows) (session.ParkedCall, error) {
	var p session.ParkedCall
	var args string
	var parked, expires int64
	err := rows.Scan(&p.Session, &p.ApprovalID, &p.CallID, &p.Client, &p.Caller.Name, &p.Caller.Verified, &p.Tool,
		&p.Server, &p.Digest, &p.Description, &args, &parked, &expires, &p.Mode, &p.Rule, &p.Decision, &p.By, &p.Reason,
		&p.Started, &p.Ran, &p.Result.IsError, &p.Result.Error, &p.Refused)
	if err != nil {
		return p, err
	}
	if args != "" {
		if p.Arguments, err = exactjson.DecodeArguments([]byte(args)); err != nil {
			return p, err
		}
	}
	p.Parked = time.Unix(0, parked)
	if expires != 0 {
		p.Expires = time.Unix(0, expires)
	}
	return p, nil
}
