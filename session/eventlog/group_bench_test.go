package eventlog

import (
	"sync"
	"testing"
)

// BenchmarkGroupCommit32: 32 writers at once, each writing a line and
// waiting for it to be on disk, one after another (as latch serve's 32
// concurrent callers' "allowed" lines): ns per write, and fsyncs per write
// (how many writes one fsync covered).
//
//	go test -run '^$' -bench GroupCommit32 -benchtime 5000x ./session/eventlog/
func BenchmarkGroupCommit32(b *testing.B) {
	l, err := OpenLog(b.TempDir(), "20261201-000000-bench0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	const writers = 32
	line := &Header{Type: "notice", SessionID: "20261201-000000-bench0"}
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	b.ResetTimer()
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range work {
				if _, err := l.Write(line, true); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.ReportMetric(float64(l.syncs.Load())/float64(b.N), "fsyncs/write")
}
