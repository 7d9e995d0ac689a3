package eventlog

import (
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestLogGroupCommit: writes that ask for a sync while one is under way
// share the next one: none returns before a sync that covers its line,
// and 32 writers waiting together cost one fsync, not 32.
func TestLogGroupCommit(t *testing.T) {
	l, err := OpenLog(t.TempDir(), "20261201-000000-group0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const writers = 32
	underWay := make(chan struct{}) // a sync under way (that covers none of these writes)
	l.mu.Lock()
	l.syncing = underWay
	l.mu.Unlock()
	var wg sync.WaitGroup
	returned := make(chan int, writers)
	for i := range writers {
		wg.Go(func() {
			if _, err := l.Write(&Header{Type: "notice", SessionID: strconv.Itoa(i)}, true); err != nil {
				t.Error(err)
			}
			returned <- i
		})
	}
	deadline := time.Now().Add(time.Minute) // a hang's bound
	for {
		l.mu.Lock()
		n := l.seq
		l.mu.Unlock()
		if n == writers {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d writes done", n, writers)
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case i := <-returned:
		t.Fatalf("write %d returned before any sync covered it", i)
	default:
	}
	l.mu.Lock()
	l.syncing = nil
	l.mu.Unlock()
	close(underWay)
	wg.Wait()
	if n := l.syncs.Load(); n != 1 {
		t.Errorf("%d writers waiting together took %d fsyncs, want 1", writers, n)
	}
	evs, warns, err := LoadLog(l.path, headers, decodeJSON)
	if err != nil || len(warns) != 0 || len(evs) != writers {
		t.Fatalf("LoadLog: %d events, %v, %v", len(evs), warns, err)
	}
	// A write alone still syncs at once.
	if _, err := l.Write(&Header{Type: "notice"}, true); err != nil || l.syncs.Load() != 2 {
		t.Fatalf("a lone write: %v, %d fsyncs", err, l.syncs.Load())
	}
	// One that asks for none takes none.
	if _, err := l.Write(&Header{Type: "notice"}, false); err != nil || l.syncs.Load() != 2 {
		t.Fatalf("an unsynced write: %v, %d fsyncs", err, l.syncs.Load())
	}
}

// TestLogWriteAllIsOneLineEach: events written together are each a whole
// line, in order.
func TestLogWriteAllIsOneLineEach(t *testing.T) {
	l, err := OpenLog(t.TempDir(), "20261201-000000-pair00")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.WriteAll([]Event{&Header{Type: "notice", SessionID: "a"}, &Header{Type: "notice", SessionID: "b"}}, true); err != nil {
		t.Fatal(err)
	}
	evs, warns, err := LoadLog(l.path, headers, decodeJSON)
	if err != nil || len(warns) != 0 || len(evs) != 2 || evs[0].(*Header).SessionID != "a" || evs[1].(*Header).SessionID != "b" {
		t.Fatalf("LoadLog: %+v, %v, %v", evs, warns, err)
	}
}

// TestLogSyncSoon: a write asked to be synced soon returns at once and is
// synced without another write asking (one fsync for several such
// writes); Close syncs what is still pending.
func TestLogSyncSoon(t *testing.T) {
	l, err := OpenLog(t.TempDir(), "20261201-000000-soon00")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := l.Write(&Header{Type: "notice"}, false); err != nil {
			t.Fatal(err)
		}
		l.SyncSoon()
	}
	deadline := time.Now().Add(time.Minute) // a hang's bound
	for {
		l.mu.Lock()
		synced := l.synced.Load()
		l.mu.Unlock()
		if synced == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the writes asked to be synced soon were synced through %d of 3", synced)
		}
		time.Sleep(time.Millisecond)
	}
	if n := l.syncs.Load(); n < 1 || n > 3 {
		t.Fatalf("%d fsyncs for 3 writes", n)
	}
	if _, err := l.Write(&Header{Type: "notice"}, false); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l.synced.Load() != 4 {
		t.Fatalf("Close left write %d unsynced", l.synced.Load()+1)
	}
}
