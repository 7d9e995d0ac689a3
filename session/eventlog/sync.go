package eventlog

import "os"

// syncThrough returns once write number seq (written to f) is on disk:
// at once when a sync since covered it, else after the sync under way (if
// it covers it) or one of its own, which covers every write done before
// it starts. A sync that fails covers nothing: each write waiting on it
// tries one of its own.
//
// The writers waiting on a sync are all woken when it ends (it closes a
// channel); those it covered return without taking the lock, and those
// it did not elect the next syncer among them.
func (l *SessionLog) syncThrough(seq uint64, f *os.File) error {
	if l.synced.Load() >= seq && l.fileIs(f) {
		return nil
	}
	l.mu.Lock()
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
	upto, done := l.seq, make(chan struct{})
	l.syncing = done
	l.mu.Unlock()
	l.syncs.Add(1)
	err := f.Sync()
	l.mu.Lock()
	if err == nil && upto > l.synced.Load() {
		l.synced.Store(upto)
	}
	l.syncing = nil
	l.mu.Unlock()
	close(done)
	return err
}
