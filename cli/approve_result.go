package cli

import (
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// resultWait bounds how long latch approve waits, once the call is
// approved, for what it then did: a call that runs longer is said to be
// still running, and its result goes to its client.
const resultWait = 10 * time.Second

// maxFailedLine bounds the line of a failed call's error latch approve
// shows, in characters.
const maxFailedLine = 300

// awaitRan waits until the approved call p has run (its result logged)
// or was refused, or until deadline, looking every session.InboxEvery,
// and returns what was logged of it last.
func awaitRan(idx *parkedIndex, p session.ParkedCall, deadline time.Time) session.ParkedCall {
	for !p.Ran && p.Refused == "" && time.Now().Before(deadline) {
		time.Sleep(session.InboxEvery)
		if after, err := findParked(idx, p.CallID); err == nil {
			p = after
		}
	}
	return p
}

// failedLine is the first line of why the approved call p failed: the
// error that kept it from giving a result, else the text of the error
// result its tool gave (in its session's log, the index keeps no result).
// Logged text is redacted; escapes are made visible here, and the line
// cut to maxFailedLine characters.
func failedLine(dir string, p session.ParkedCall) string {
	why := p.Result.Error
	if why == "" {
		if calls, err := session.ParkedCallsOf(dir, p.Session); err == nil {
			for _, c := range calls {
				if c.CallID == p.CallID {
					why = c.Result.Content
				}
			}
		}
	}
	why = sanitize.FirstLine(why, maxFailedLine)
	if why == "" {
		why = "(its error gave no text)"
	}
	return why
}
