package session_test

import (
	"fmt"
	"testing"

	"latch/session"
)

// BenchmarkParkedRead10000 reads a gateway's log of 10,000 parked calls,
// each waiting, as latch approvals does without its index
// (ParkedCalls), as a restarted gateway does (ParkedCallsOf, HasWaiting),
// the log read whole (no park mark) and through its mark:
//
//	go test -run '^$' -bench ParkedRead10000 -benchmem ./session/
func BenchmarkParkedRead10000(b *testing.B) {
	dir := b.TempDir()
	l := newParkLog(b, dir, "gw")
	for i := range 10000 {
		id := fmt.Sprintf("gw_%012d", i)
		l.park(id, fmt.Sprintf("ap_%012d", i), fmt.Sprintf(`{"text":"note %d"}`, i))
	}
	reads := []struct {
		name string
		read func() (int, error)
	}{
		{"ParkedCalls", func() (int, error) { c, err := session.ParkedCalls(dir); return len(c), err }},
		{"ParkedCallsOf", func() (int, error) { c, err := session.ParkedCallsOf(dir, "gw"); return len(c), err }},
		{"HasWaiting", func() (int, error) {
			w, err := session.HasWaiting(dir, "gw")
			if !w {
				return 0, err
			}
			return 10000, err
		}},
	}
	for _, how := range []string{"whole", "marked"} {
		for _, r := range reads {
			b.Run(how+"/"+r.name, func(b *testing.B) {
				if how == "whole" {
					session.MarkEveryForTest(b, 1<<62) // no mark kept, and none there
				} else if err := session.MarkParked(dir, "gw"); err != nil {
					b.Fatal(err)
				}
				for b.Loop() {
					if n, err := r.read(); err != nil || n != 10000 {
						b.Fatalf("%d calls, %v", n, err)
					}
				}
			})
		}
	}
}
