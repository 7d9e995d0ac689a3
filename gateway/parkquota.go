package gateway

import (
	"fmt"
	"sync"
)

// parkQuota counts the calls waiting for a person (parked, undecided) and
// the bytes they put in the session log, per client and in all, so that
// one client cannot fill the log, or the list of calls a person has to
// go through, with calls no one will decide.
type parkQuota struct {
	l Limits

	mu    sync.Mutex
	per   map[string]*parkUse
	total parkUse
}

// parkUse is what waits: calls, and their bytes in the log.
type parkUse struct {
	calls int
	bytes int64
}

func newParkQuota(l Limits) *parkQuota {
	return &parkQuota{l: l.withDefaults(), per: map[string]*parkUse{}}
}

// admit takes room for a call of client (key names it; name is what the
// refusal calls it) that would wait with size bytes in the log. It returns
// the release to call once the call no longer waits, or why the call is
// refused: which limit, its key and its value.
func (q *parkQuota) admit(key, name string, size int64) (release func(), refusal string) {
	q.mu.Lock()
	defer q.mu.Unlock()
	u := q.per[key]
	if u == nil {
		u = &parkUse{}
	}
	l := q.l
	switch {
	case u.calls >= l.ParkCalls:
		return nil, fmt.Sprintf("too many calls waiting for approval from %s: at most %d wait at once "+
			"(serve.park_max_calls_per_client); wait until a person decides one", name, l.ParkCalls)
	case u.bytes+size > l.ParkBytes:
		return nil, fmt.Sprintf("too many bytes waiting for approval from %s: its waiting calls may hold at most %d bytes "+
			"(serve.park_max_bytes_per_client), and this one needs %d with %d held; wait until a person decides one",
			name, l.ParkBytes, size, u.bytes)
	case q.total.calls >= l.ParkCallsTotal:
		return nil, fmt.Sprintf("too many calls waiting for approval: at most %d wait at once, from all clients "+
			"(serve.park_max_calls); wait until a person decides one", l.ParkCallsTotal)
	case q.total.bytes+size > l.ParkBytesTotal:
		return nil, fmt.Sprintf("too many bytes waiting for approval: the waiting calls of all clients may hold at most %d bytes "+
			"(serve.park_max_bytes), and this one needs %d with %d held; wait until a person decides one",
			l.ParkBytesTotal, size, q.total.bytes)
	}
	q.per[key] = u
	u.calls++
	u.bytes += size
	q.total.calls++
	q.total.bytes += size
	var once sync.Once
	return func() { once.Do(func() { q.release(key, u, size) }) }, ""
}

// release gives back a waiting call's room, forgetting a client with
// nothing waiting.
func (q *parkQuota) release(key string, u *parkUse, size int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	u.calls--
	u.bytes -= size
	q.total.calls--
	q.total.bytes -= size
	if u.calls == 0 && q.per[key] == u {
		delete(q.per, key)
	}
}
