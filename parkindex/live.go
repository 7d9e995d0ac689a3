package parkindex

import (
	"sort"

	"latch/session"
)

// Live keeps the calls waiting in an index for a reader that asks again
// and again (the inbox): each Waiting catches the index up and reads only
// the rows that changed since the last, so that a poll costs what
// changed, not the backlog.
type Live struct {
	x       *Index
	gen     int64                        // the index's gen when last read
	calls   map[int64]session.ParkedCall // waiting, by row id
	waiting []session.ParkedCall         // calls, in order
}

// Live is a Live on x.
func (x *Index) Live() *Live { return &Live{x: x, gen: -1} }

// Waiting catches the index up and gives the calls waiting now, oldest
// first, and whether they changed since the last Waiting. The slice is
// shared with later calls until it changes: read it, do not change it.
func (l *Live) Waiting() ([]session.ParkedCall, bool, error) {
	if err := l.x.CatchUp(); err != nil {
		return nil, false, err
	}
	var gen, reset int64
	if err := l.x.db.QueryRow("SELECT gen, reset FROM meta").Scan(&gen, &reset); err != nil {
		return nil, false, err
	}
	if gen == l.gen {
		return l.waiting, false, nil
	}
	if l.calls == nil || reset > l.gen {
		// Calls were removed since: read them all again.
		l.calls = map[int64]session.ParkedCall{}
		if err := l.read("SELECT id, "+callColumns+" FROM calls WHERE decision = ''", nil); err != nil {
			return nil, false, err
		}
	} else if err := l.read("SELECT id, "+callColumns+" FROM calls WHERE changed > ?", l.gen); err != nil {
		return nil, false, err
	}
	l.gen = gen
	ids := make([]int64, 0, len(l.calls))
	for id := range l.calls {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := l.calls[ids[i]], l.calls[ids[j]]
		if !a.Parked.Equal(b.Parked) {
			return a.Parked.Before(b.Parked)
		}
		return ids[i] < ids[j]
	})
	l.waiting = make([]session.ParkedCall, len(ids))
	for i, id := range ids {
		l.waiting[i] = l.calls[id]
	}
	return l.waiting, true, nil
}

// read takes the rows of q into the waiting calls: a waiting one in, a
// decided one out.
func (l *Live) read(q string, arg any) error {
	var args []any
	if arg != nil {
		args = []any{arg}
	}
	rows, err := l.x.db.Query(q, args...)
	if err != nil {
		return err
	}
	defer func() { _ = rows.Close() }() // read only
	for rows.Next() {
		var id int64
		p, err := scanCall(rows, &id)
		if err != nil {
			return err
		}
		if p.Waiting() {
			l.calls[id] = p
		} else {
			delete(l.calls, id)
		}
	}
	return rows.Err()
}
