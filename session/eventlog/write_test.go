package eventlog

import (
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestLogWriteHoldsNoLock: while one write is stuck in write(2) (here a
// pipe no one reads yet), the log's lock is free, and the writes that
// come meanwhile are gathered and written together once it ends, each
// line whole and in the order given.
func TestLogWriteHoldsNoLock(t *testing.T) {
	l, err := OpenLog(t.TempDir(), "20261201-000000-nolock")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	file := l.SwapFile(w)
	defer l.SwapFile(file)
	defer w.Close()
	big := &Header{Type: "notice", SessionID: strings.Repeat("x", 256<<10)} // more than a pipe holds
	done := make(chan error, 3)
	go func() { _, err := l.Write(big, false); done <- err }()
	deadline := time.Now().Add(time.Minute) // a hang's bound
	for !stuck(l) {
		if time.Now().After(deadline) {
			t.Fatal("the big write never reached write(2)")
		}
		time.Sleep(time.Millisecond)
	}
	for i := range 2 {
		go func() {
			_, err := l.Write(&Header{Type: "notice", SessionID: string(rune('a' + i))}, false)
			done <- err
		}()
	}
	for {
		l.mu.Lock()
		n := 0
		if l.open != nil {
			n = int(l.open.writes)
		}
		l.mu.Unlock() // taken and given back while write(2) is stuck
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of 2 writes gathered while the first was stuck", n)
		}
		time.Sleep(time.Millisecond)
	}
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if n := l.writes.Load(); n != 2 {
		t.Errorf("%d write(2)s for a stuck write and 2 gathered behind it, want 2", n)
	}
	w.Close()
	lines := strings.Split(strings.TrimSuffix(string(<-got), "\n"), "\n")
	if len(lines) != 3 || len(lines[0]) < 256<<10 || !strings.Contains(lines[1]+lines[2], `"a"`) || !strings.Contains(lines[1]+lines[2], `"b"`) {
		t.Fatalf("%d lines written, want the big one then a and b", len(lines))
	}
}

// stuck reports whether a batch is in write(2).
func stuck(l *SessionLog) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.inflight != nil
}

// TestLogConcurrentWrites: 32 writers at once, synced and not, each
// write's lines whole and none lost, in fewer write(2)s than writes when
// they overlap (never more).
func TestLogConcurrentWrites(t *testing.T) {
	l, err := OpenLog(t.TempDir(), "20261201-000000-many00")
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 32, 40
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				es := []Event{&Header{Type: "notice", SessionID: "one"}, &Header{Type: "notice", SessionID: "two"}}
				if _, err := l.WriteAll(es[:1+j%2], i%2 == 0); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	evs, warns, err := LoadLog(l.path, headers, decodeJSON)
	want := writers * each * 3 / 2
	if err != nil || len(warns) != 0 || len(evs) != want {
		t.Fatalf("LoadLog: %d events (want %d), %v, %v", len(evs), want, warns, err)
	}
	for i, e := range evs { // a WriteAll's two lines stay together
		if e.(*Header).SessionID == "two" && evs[i-1].(*Header).SessionID != "one" {
			t.Fatalf("line %d: a pair's second line without its first before it", i)
		}
	}
	if n := l.writes.Load(); n > writers*each {
		t.Errorf("%d write(2)s for %d writes", n, writers*each)
	}
	if l.synced.Load() != l.seq {
		t.Errorf("synced through write %d of %d after Close", l.synced.Load(), l.seq)
	}
}
