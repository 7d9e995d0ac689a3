package inbox

import (
	"fmt"
	"testing"
	"time"

	"latch/session"
)

// BenchmarkWatch compares, in one run, a read of the inbox's Source when
// no session log changed (a stat of each) with a read of every log
// (session.ParkedCalls, what latch approvals does), with 500 calls
// waiting: the live inbox polls four times a second at the first cost.
//
//	go test -run '^$' -bench BenchmarkWatch -benchtime 200x ./ui/inbox/
func BenchmarkWatch(b *testing.B) {
	g := newGateway(b, "")
	for i := range 500 {
		g.park("ci", fmt.Sprintf("note %d", i))
	}
	src := Watch(g.dir)
	if calls, err := src(); err != nil || len(calls) != 500 {
		b.Fatalf("%d calls, %v", len(calls), err)
	}
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if _, err := src(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reread", func(b *testing.B) {
		for b.Loop() {
			if _, err := session.ParkedCalls(g.dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLookRan compares, in one run, a look at one approved call
// still running in a session log of 500 parked calls when the log has
// not changed since the last look (a stat) with one that reads the log
// (what each read of the inbox did while it watched the call, with no
// index): the live inbox looks four times a second for up to a minute.
//
//	go test -run '^$' -bench BenchmarkLookRan -benchmem -benchtime 200x ./ui/inbox/
func BenchmarkLookRan(b *testing.B) {
	g := newGateway(b, "")
	for i := range 500 {
		g.park("ci", fmt.Sprintf("note %d", i))
	}
	calls, err := Watch(g.dir)()
	if err != nil || len(calls) != 500 {
		b.Fatalf("%d calls, %v", len(calls), err)
	}
	w := []watched{{c: calls[0], until: time.Now().Add(time.Hour)}}
	stamps := lookRan(g.dir, w, nil, time.Now(), nil).stamps
	b.Run("unchanged", func(b *testing.B) {
		for b.Loop() {
			if r := lookRan(g.dir, w, nil, time.Now(), stamps); len(r.settled) != 0 {
				b.Fatal("settled")
			}
		}
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if r := lookRan(g.dir, w, nil, time.Now(), nil); len(r.settled) != 0 {
				b.Fatal("settled")
			}
		}
	})
}
