package session

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"latch/session/eventlog"
)

// Remove deletes a saved session: its log, its lock file, its park mark
// (parkmark.go) and the decisions waiting for it in its inbox (a
// gateway's, see inbox.go). It takes the session's lock first, so a
// session another latch holds is refused (ErrSessionBusy) and never
// deleted under it.
func Remove(dir, id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%s: not a session id (letters, digits, - and _ only)", id)
	}
	logPath := filepath.Join(dir, id+".jsonl")
	if _, err := os.Stat(logPath); errors.Is(err, fs.ErrNotExist) {
		return noSessionError{id}
	}
	lock, err := eventlog.LockSession(dir, id)
	if err != nil {
		return err
	}
	defer lock.Release()
	if err := os.Remove(logPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("session %s: %w", id, err)
	}
	// Decisions sent to a gateway run of it that it never took go with
	// it: nothing is left to apply them to.
	if err := os.RemoveAll(inboxDir(dir, id)); err != nil {
		return fmt.Errorf("session %s: its decisions folder: %w", id, err)
	}
	_ = os.Remove(markPath(logPath)) // a mark of no log is never taken: harmless if left
	// The lock file goes while it is held: a latch that opens the id now
	// finds no log to resume.
	_ = os.Remove(filepath.Join(dir, id+".lock")) // the log is gone; a stray lock file is harmless
	return nil
}

// PruneResult is what Prune did.
type PruneResult struct {
	Removed []string // the ids deleted (or, in a dry run, that would be)
	Busy    []string // old ones another latch holds, kept
	Kept    int      // every session left, the busy ones included
}

// Prune deletes the saved sessions whose last activity is before cutoff,
// skipping those another latch holds. With dryRun it deletes nothing and
// reports what it would delete.
func Prune(dir string, cutoff time.Time, dryRun bool) (PruneResult, error) {
	var r PruneResult
	list, err := List(dir)
	if err != nil {
		return r, err
	}
	for _, s := range list {
		if !s.Updated.Before(cutoff) {
			r.Kept++
			continue
		}
		remove := Remove
		if dryRun {
			remove = canRemove
		}
		switch err := remove(dir, s.ID); {
		case errors.Is(err, ErrSessionBusy):
			r.Busy = append(r.Busy, s.ID)
			r.Kept++
		case err != nil:
			return r, err
		default:
			r.Removed = append(r.Removed, s.ID)
		}
	}
	return r, nil
}

// canRemove is Remove without deleting: it says whether the session could
// be deleted now.
func canRemove(dir, id string) error {
	lock, err := eventlog.LockSession(dir, id)
	if err != nil {
		return err
	}
	lock.Release()
	return nil
}
