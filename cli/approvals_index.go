package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"sync"

	"latch/parkindex"
	"latch/session"
	"latch/ui/inbox"
)

// parkedIndex is latch approvals' and latch approve's way to the parked
// calls: the index (parkindex), caught up from the session logs, or the
// logs themselves when the index cannot be used (said once on stderr;
// the logs are the truth, so nothing is lost but time).
type parkedIndex struct {
	dir    string
	x      *parkindex.Index // nil: read the logs
	stderr io.Writer
	broken bool // the index failed once: this process reads the logs
}

// openParked opens the index of the state folder for one command.
func openParked(dir string, stderr io.Writer) *parkedIndex {
	return &parkedIndex{dir: dir, stderr: stderr}
}

// ready catches the index up, opening it the first time; false when it
// cannot be used (said, and the logs read instead).
func (p *parkedIndex) ready() bool {
	if p.broken {
		return false
	}
	if _, err := os.Stat(p.dir); errors.Is(err, fs.ErrNotExist) {
		return false // no state folder yet: no call was ever parked, and none is made for an index
	}
	o := parkindex.Options{Warn: func(msg string) { say(p.stderr, msg) }, Progress: p.progress}
	var err error
	if p.x == nil {
		p.x, err = parkindex.Ready(p.dir, o)
	} else if err = p.x.CatchUp(); err != nil {
		_ = p.x.Close() // given up on
		p.x, err = parkindex.Ready(p.dir, o)
	}
	if err != nil {
		say(p.stderr, "the index of parked calls cannot be used ("+err.Error()+"): reading the session logs instead, which is slower; "+
			"remove "+parkindex.FileName+" in "+p.dir+" if this stays")
		p.x, p.broken = nil, true
		return false
	}
	return true
}

// progress says how far a long rebuild of the index has come.
func (p *parkedIndex) progress(done, total int64) {
	if done == total {
		fmt.Fprintf(p.stderr, "latch: indexed the parked calls of %.0f MB of session logs\n", float64(total)/(1<<20))
		return
	}
	fmt.Fprintf(p.stderr, "latch: indexing the parked calls of the session logs: %.0f of %.0f MB…\n", float64(done)/(1<<20), float64(total)/(1<<20))
}

// waiting is every call waiting for a decision, oldest first, with what
// a list shows of each (parkindex.WaitingList).
func (p *parkedIndex) waiting() ([]session.ParkedCall, error) {
	if p.ready() {
		if calls, err := p.x.WaitingList(); err == nil {
			return calls, nil
		}
	}
	all, err := session.ParkedCalls(p.dir)
	var out []session.ParkedCall
	for _, c := range all {
		if c.Waiting() {
			out = append(out, c)
		}
	}
	return out, err
}

// find is every call whose invocation or approval id is id.
func (p *parkedIndex) find(id string) ([]session.ParkedCall, error) {
	if p.ready() {
		if calls, err := p.x.Find(id); err == nil {
			return calls, nil
		}
	}
	all, err := session.ParkedCalls(p.dir)
	var out []session.ParkedCall
	for _, c := range all {
		if c.CallID == id || c.ApprovalID == id {
			out = append(out, c)
		}
	}
	return out, err
}

// close closes the index.
func (p *parkedIndex) close() {
	if p.x != nil {
		_ = p.x.Close() // read from only, or each catch-up committed
	}
}

// inboxSource is latch inbox's Source on the index (parkindex.Live): a
// poll reads only what changed in the logs and in the index; and its Find,
// what became of the decisions sent, from the index too. When the
// index cannot be used it is the session logs (inbox.Watch), said on
// stderr before the screen opens; if it fails later, the logs, silently
// (the screen owns the terminal), and nothing is lost but time.
func inboxSource(dir string, stderr io.Writer) (inbox.Source, func(string, []string) ([]session.ParkedCall, error), func()) {
	idx := openParked(dir, stderr)
	if !idx.ready() {
		return inbox.Watch(dir), nil, func() {}
	}
	live := idx.x.Live()
	var fallback inbox.Source
	var last []inbox.Call
	var lastStopped map[string]bool
	var mu sync.Mutex // its reads take turns, whoever calls it
	src := func() ([]inbox.Call, error) {
		mu.Lock()
		defer mu.Unlock()
		if fallback != nil {
			return fallback()
		}
		calls, changed, err := live.Waiting()
		if err != nil {
			fallback = inbox.Watch(dir)
			return fallback()
		}
		stopped := map[string]bool{}
		for _, c := range calls {
			if _, ok := stopped[c.Session]; !ok {
				stopped[c.Session] = !session.Running(dir, c.Session)
			}
		}
		if !changed && maps.Equal(stopped, lastStopped) {
			return last, nil
		}
		out := make([]inbox.Call, len(calls))
		for i, c := range calls {
			out[i] = inbox.Call{ParkedCall: c, Stopped: stopped[c.Session] && c.Client != ""}
		}
		last, lastStopped = out, stopped
		return out, nil
	}
	// The decisions' outcomes are read by another goroutine than the
	// polls: an index of its own, or the session's log when it fails.
	found := openParked(dir, io.Discard)
	find := func(sessionID string, callIDs []string) ([]session.ParkedCall, error) {
		if !found.ready() { // one catch-up, then one look-up of the calls
			return session.ParkedCallsOf(dir, sessionID)
		}
		calls, err := found.x.CallsOf(sessionID, callIDs)
		if err != nil {
			return session.ParkedCallsOf(dir, sessionID)
		}
		return calls, nil
	}
	return src, find, func() { idx.close(); found.close() }
}
