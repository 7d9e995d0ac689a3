package parkindex

import (
	"database/sql"
	"encoding/json"
	"errors"

	"latch/session"
)

// The statements a catch-up runs for the lines of a log, as
// session.ParkedCallsOf reads the same lines.
const (
	insertCall = `INSERT INTO calls (session, approval_id, call_id, client, caller, caller_verified, tool, server,
		digest, description, arguments, parked, expires, mode, rule, changed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	lastOfCall     = `SELECT id, decision, started FROM calls WHERE session = ? AND call_id = ? ORDER BY id DESC LIMIT 1`
	lastOfApproval = `SELECT id FROM calls WHERE session = ? AND approval_id = ? ORDER BY id DESC LIMIT 1`
	setDecision    = `UPDATE calls SET decision = ?, decided_by = ?, reason = ?, changed = ? WHERE id = ?`
	setStarted     = `UPDATE calls SET started = 1, changed = ? WHERE id = ?`
	setAnswered    = `UPDATE calls SET decision = 'answered', changed = ? WHERE id = ?`
	setRan         = `UPDATE calls SET ran = 1, is_error = ?, error = ?, changed = ? WHERE id = ?`
	setRefused     = `UPDATE calls SET refused = ?, changed = ? WHERE id = ?`
	selectWhy      = `SELECT mode, rule FROM why WHERE session = ? AND call_id = ?`
	deleteWhy      = `DELETE FROM why WHERE session = ? AND call_id = ?`
	insertWhy      = `INSERT INTO why (session, call_id, mode, rule) VALUES (?, ?, ?, ?)
		ON CONFLICT (session, call_id) DO UPDATE SET mode = excluded.mode, rule = excluded.rule`
)

// stmt is the prepared statement q of the catch-up's transaction.
func (c *catchUp) stmt(q string) (*sql.Stmt, error) {
	if s, ok := c.stmts[q]; ok {
		return s, nil
	}
	s, err := c.tx.Prepare(q)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[q] = s
	return s, nil
}

// exec runs the prepared statement q.
func (c *catchUp) exec(q string, args ...any) error {
	s, err := c.stmt(q)
	if err == nil {
		_, err = s.Exec(args...)
	}
	return err
}

// apply takes one line of session id's log into the index.
func (c *catchUp) apply(id string, line []byte) error {
	e, ok := session.ReadParkLine(line)
	if !ok {
		return nil
	}
	switch e.Type {
	case session.TypePermission:
		return c.permission(id, e)
	case session.TypeApprovalParked:
		return c.parked(id, e)
	case session.TypeApprovalResolved:
		row, found, err := c.row(lastOfApproval, id, e.ApprovalID)
		if err != nil || !found {
			return err
		}
		return c.exec(setDecision, e.Decision, e.By, e.Reason, c.gen, row.id)
	case session.TypeToolResult:
		return c.result(id, e)
	}
	return nil
}

// permission: the event that parks a call (kept until its parking), or
// the one that lets an approved call start.
func (c *catchUp) permission(id string, e session.ParkLine) error {
	switch e.Decision {
	case "parked":
		c.why[id+"\x00"+e.CallID] = whyRow{mode: e.Mode, rule: e.Rule}
	case "allowed":
		row, found, err := c.row(lastOfCall, id, e.CallID)
		if err != nil || !found || row.decision != "approved" {
			return err
		}
		return c.exec(setStarted, c.gen, row.id)
	}
	return nil
}

// parked adds the call a line parks, with the permission event before it.
func (c *catchUp) parked(id string, e session.ParkLine) error {
	k := id + "\x00" + e.CallID
	why, ok := c.why[k]
	if ok {
		delete(c.why, k)
	} else {
		s, err := c.stmt(selectWhy)
		if err != nil {
			return err
		}
		err = s.QueryRow(id, e.CallID).Scan(&why.mode, &why.rule)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err == nil {
			if err := c.exec(deleteWhy, id, e.CallID); err != nil {
				return err
			}
		}
	}
	p := e.Parking(id, session.ParkLine{Mode: why.mode, Rule: why.rule})
	args := ""
	if p.Arguments != nil {
		b, err := json.Marshal(p.Arguments)
		if err != nil {
			return nil // not JSON again: nothing a person could decide on
		}
		args = string(b)
	}
	var expires int64
	if !p.Expires.IsZero() {
		expires = p.Expires.UnixNano()
	}
	return c.exec(insertCall, id, p.ApprovalID, p.CallID, p.Client, p.Caller.Name, p.Caller.Verified, p.Tool, p.Server,
		p.Digest, p.Description, args, p.Parked.UnixNano(), expires, p.Mode, p.Rule, c.gen)
}

// result: what a tool_result says of a parked call.
func (c *catchUp) result(id string, e session.ParkLine) error {
	row, found, err := c.row(lastOfCall, id, e.CallID)
	switch {
	case err != nil || !found:
		return err
	case row.decision == "":
		return c.exec(setAnswered, c.gen, row.id)
	case row.started:
		return c.exec(setRan, e.IsError, e.Error, c.gen, row.id)
	case row.decision == "approved" && e.Error != "":
		return c.exec(setRefused, e.Error, c.gen, row.id)
	}
	return nil
}

// callRow is what a catch-up needs of a call's row.
type callRow struct {
	id       int64
	decision string
	started  bool
}

// row finds the last call of a session by q (lastOfCall, lastOfApproval).
func (c *catchUp) row(q, id, key string) (callRow, bool, error) {
	s, err := c.stmt(q)
	if err != nil {
		return callRow{}, false, err
	}
	var r callRow
	if q == lastOfCall {
		err = s.QueryRow(id, key).Scan(&r.id, &r.decision, &r.started)
	} else {
		err = s.QueryRow(id, key).Scan(&r.id)
	}
	if errors.Is(err, sql.ErrNoRows) {
		return r, false, nil
	}
	return r, err == nil, err
}

// flushWhy keeps the permission events whose parking was not read yet.
func (c *catchUp) flushWhy() error {
	for k, w := range c.why {
		id, call, _ := cutZero(k)
		if err := c.exec(insertWhy, id, call, w.mode, w.rule); err != nil {
			return err
		}
	}
	return nil
}

// cutZero splits a key of c.why.
func cutZero(k string) (string, string, bool) {
	for i := range len(k) {
		if k[i] == 0 {
			return k[:i], k[i+1:], true
		}
	}
	return k, "", false
}
