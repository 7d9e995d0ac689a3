package inbox

import (
	"fmt"
	"testing"

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
