package eventlog

import (
	"runtime/metrics"
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
	line := &Header{Type: "notice", SessionID: "20261201-000000-bench0"}
	run32(b, l, func() error {
		_, err := l.Write(line, true)
		return err
	})
}

// benchEvent is about the size of a gateway call's events.
type benchEvent struct {
	Header
	Tool string            `json:"tool"`
	Args map[string]string `json:"arguments"`
	Text string            `json:"text"`
}

// BenchmarkGroupCommitCall32: 32 callers at once, each logging what an
// allowed gateway call logs (session.logged): its tool_call and permission
// in one write synced before the call runs, then its result, written
// before the caller is answered and synced soon. Per call: ns, allocs,
// fsyncs, write(2)s and the time goroutines waited on a mutex (all of the
// process's mutexes, so the benchmark's own too).
//
//	go test -run '^$' -bench GroupCommitCall32 -benchmem -benchtime 5000x ./session/eventlog/
func BenchmarkGroupCommitCall32(b *testing.B) {
	l, err := OpenLog(b.TempDir(), "20261201-000000-bench1")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	args := map[string]string{"path": "/srv/data/report.txt", "content": "a line of text to write"}
	call := &benchEvent{Header: Header{Type: "tool_call", SessionID: "20261201-000000-bench1"}, Tool: "files__write", Args: args}
	perm := &benchEvent{Header: Header{Type: "permission", SessionID: "20261201-000000-bench1"}, Tool: "files__write", Text: "allowed"}
	result := &benchEvent{Header: Header{Type: "tool_result", SessionID: "20261201-000000-bench1"}, Tool: "files__write",
		Text: "wrote 23 bytes to /srv/data/report.txt"}
	run32(b, l, func() error {
		if _, err := l.WriteAll([]Event{call, perm}, true); err != nil {
			return err
		}
		_, err := l.Write(result, false)
		l.SyncSoon()
		return err
	})
}

// run32 runs op b.N times over 32 goroutines and reports the log's
// system calls, the mutex wait and the process's CPU time per op.
func run32(b *testing.B, l *SessionLog, op func() error) {
	const writers = 32
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	b.ReportAllocs()
	syncs, writes := l.syncs.Load(), l.writes.Load()
	wait, cpu := mutexWait(), cpuTime()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range writers {
		wg.Go(func() {
			for range work {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(float64(l.syncs.Load()-syncs)/n, "fsyncs/op")
	b.ReportMetric(float64(l.writes.Load()-writes)/n, "writes/op")
	b.ReportMetric((mutexWait()-wait)*1e9/n, "mutex-wait-ns/op")
	b.ReportMetric((cpuTime()-cpu)*1e9/n, "cpu-ns/op")
}

// mutexWait is the time goroutines spent waiting on a sync.Mutex or
// RWMutex so far, in seconds.
func mutexWait() float64 {
	s := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}
