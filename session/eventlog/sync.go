package eventlog

import "os"

// syncThrough returns once write number seq (written to f) is on disk:
// at once when a sync since covered it, else after the sync under way (if
// it covers it) or one of its own, which covers every write done before
// it starts. A sync that fails covers nothing: each write waiting on it
// tries one of its own.
//
// A writer that finds no sync under way syncs itself (a lone write waits
// for nothing else). When its sync ends and writes done meanwhile wait
// for one, it does not return to them: syncRounds goes on at once with
// the next sync, so that the disk is not left idle while one of them is
// woken and scheduled to start it (on a busy machine that wait is longer
// than the sync).
func (l *SessionLog) syncThrough(seq uint64, f *os.File) error {
	if l.synced.Load() >= seq && l.fileIs(f) {
		return nil
	}
	l.mu.Lock()
	l.wanted = max(l.wanted, seq)
	for {
		if l.f != f { // SwapFile since (tests only): sync the write's own file
			l.mu.Unlock()
			return f.Sync()
		}
		if l.synced.Load() >= seq {
			l.mu.Unlock()
			return nil
		}
		if l.syncing == nil {
			break
		}
		wait := l.syncing
		l.mu.Unlock()
		<-wait
		if l.synced.Load() >= seq && l.fileIs(f) { // covered: no lock taken
			return nil
		}
		l.mu.Lock()
	}
	l.syncing = make(chan struct{})
	err := l.syncRound(f)
	if err == nil && l.wanted > l.synced.Load() && l.f == f {
		l.syncing = make(chan struct{})
		go l.syncRounds(f)
	}
	l.mu.Unlock()
	return err
}

// syncRound syncs f, covering every write done before, with mu held on
// entry and on return (not across the fsync) and syncing set: it closes
// syncing and sets it to nil when the sync ends.
func (l *SessionLog) syncRound(f *os.File) error {
	upto, done := l.seq, l.syncing
	l.mu.Unlock()
	l.syncs.Add(1)
	err := f.Sync()
	l.mu.Lock()
	if err == nil && upto > l.synced.Load() {
		l.synced.Store(upto)
	}
	l.syncing = nil
	close(done)
	return err
}

// syncRounds syncs f again, while writes wait for a sync and the last one
// worked (after a failure each waiting write tries its own), with syncing
// set on entry.
func (l *SessionLog) syncRounds(f *os.File) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.syncRound(f) == nil && l.wanted > l.synced.Load() && l.f == f {
		l.syncing = make(chan struct{})
	}
}
