package inbox

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// resultWatch bounds how long the inbox watches a call it approved for
// what the call then did: one that runs longer is said to be still
// running, its result going to its client. The inbox never waits on it:
// each read of the waiting calls looks once.
const resultWatch = time.Minute

// maxFailedLine bounds the line of a failed call's error the inbox
// shows, in characters, as latch approve's.
const maxFailedLine = 300

// watched is a call this inbox approved, watched until it has run, was
// refused, or until.
type watched struct {
	c     Call
	until time.Time
}

// ranReport is what a look at the watched calls found: the keys of those
// settled (ran, refused, or past their watch), a line on each that
// failed or was refused, how many are still running past their watch,
// and the stamps of the session logs it read.
type ranReport struct {
	settled map[string]bool
	lines   []string
	late    int
	stamps  map[string]logStamp
}

// logStamp is a session log's size and modification time: a log whose
// stamp is as at the last look logged nothing new, and is not read again.
type logStamp struct {
	size int64
	mod  time.Time
}

// stampOf is the stamp of the log of session id in dir; false when it
// cannot be had (then the log is read).
func stampOf(dir, id string) (logStamp, bool) {
	fi, err := os.Stat(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		return logStamp{}, false
	}
	return logStamp{fi.Size(), fi.ModTime()}, true
}

// lookRan reads, once for each session, what became of the watched
// calls (through find when set, as send does) at now. A failed call's
// line is the first line of its error, made safe (sanitize.FirstLine):
// the error that kept it from giving a result, else its tool's error
// result, read from its session's log when find gave no text (the index
// keeps no result). A log whose stamp is as in before is not read: its
// calls are only checked against their watch.
func lookRan(dir string, w []watched, find func(string, []string) ([]session.ParkedCall, error), now time.Time,
	before map[string]logStamp) ranReport {
	r := ranReport{settled: map[string]bool{}, stamps: map[string]logStamp{}}
	if len(w) == 0 {
		return r
	}
	var calls []Call
	changed := map[string]bool{}
	for _, x := range w {
		id := x.c.Session
		if _, done := changed[id]; !done {
			st, ok := stampOf(dir, id)
			old, had := before[id]
			changed[id] = !ok || !had || st != old
			if ok {
				r.stamps[id] = st
			}
		}
		if changed[id] {
			calls = append(calls, x.c)
		}
	}
	logged := loggedOf(dir, calls, find)
	read := map[string][]session.ParkedCall{} // whole logs, for the text of error results
	for _, x := range w {
		p, ok := loggedCall(logged[x.c.Session], x.c)
		switch {
		case ok && p.Refused != "":
			r.lines = append(r.lines, notDecided(x.c, "approved", "the gateway refused it: "+p.Refused))
		case ok && p.Ran && (p.Result.IsError || p.Result.Error != ""):
			why := p.Result.Error
			if why == "" && p.Result.Content == "" {
				if _, done := read[x.c.Session]; !done {
					read[x.c.Session], _ = session.ParkedCallsOf(dir, x.c.Session)
				}
				p, _ = loggedCall(read[x.c.Session], x.c)
			}
			if why == "" {
				why = p.Result.Content
			}
			line := sanitize.FirstLine(why, maxFailedLine)
			if line == "" {
				line = "(its error gave no text)"
			}
			r.lines = append(r.lines, sanitize.Line(fmt.Sprintf("%s (%s): approved, and then it failed: ", x.c.CallID, x.c.Tool))+line)
		case ok && p.Ran:
		case now.After(x.until):
			if ok || !changed[x.c.Session] {
				r.late++
			}
		default:
			continue
		}
		r.settled[key(x.c)] = true
	}
	return r
}

// loggedCall is c as all logged it.
func loggedCall(all []session.ParkedCall, c Call) (session.ParkedCall, bool) {
	for _, p := range all {
		if p.CallID == c.CallID && p.ApprovalID == c.ApprovalID {
			return p, true
		}
	}
	return session.ParkedCall{}, false
}

// settle takes what a look at the watched calls found: the settled ones
// are no longer watched, and the failed and refused ones are noted, with
// a summary when there are several, and the late ones counted.
func (m *Model) settle(r ranReport) {
	if len(r.settled) > 0 {
		kept := m.watch[:0]
		for _, x := range m.watch {
			if !r.settled[key(x.c)] {
				kept = append(kept, x)
			}
		}
		m.watch = kept
	}
	if m.stamps == nil {
		m.stamps = map[string]logStamp{}
	}
	maps.Copy(m.stamps, r.stamps)
	live := map[string]bool{}
	for _, x := range m.watch {
		live[x.c.Session] = true
	}
	for id := range m.stamps {
		if !live[id] {
			delete(m.stamps, id)
		}
	}
	switch n := len(r.lines); {
	case n == 1:
		m.note(r.lines[0])
	case n > 1:
		m.noteDecided(append(r.lines, fmt.Sprintf("%d calls approved here then failed or were refused: L lists every note", n)))
	}
	if r.late == 1 {
		m.note(fmt.Sprintf("1 approved call still running after %s: its result goes to its client", resultWatch))
	} else if r.late > 1 {
		m.note(fmt.Sprintf("%d approved calls still running after %s: their results go to their clients", r.late, resultWatch))
	}
}
