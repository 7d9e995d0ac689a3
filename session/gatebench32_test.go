package session

import (
	"context"
	"runtime/metrics"
	"sync"
	"testing"
)

// BenchmarkGatewayCall32: 32 clients of a gateway at once, each making
// allowed calls of the in-process echo tool one after another, with the
// session log on disk (the call and its "allowed" synced before the call
// runs, the result written before the client is answered): the session
// log's cost per call under 32 concurrent writers. It reports ns and
// allocations per call, the CPU time the process spent per call and the
// time goroutines waited on a mutex per call.
//
//	go test -run '^$' -bench GatewayCall32 -benchtime 5000x ./session/
func BenchmarkGatewayCall32(b *testing.B) {
	s, _ := benchSession(b, benchServers(), b.TempDir())
	args := map[string]any{"message": "hello"}
	ctx := context.Background()
	call := func() bool {
		out := s.GatewayCall(ctx, GatewayCall{Client: "bench", Name: "bench__echo", Arguments: args})
		return out.Decision == GatewayAllowed && out.Result != nil && out.Result.Text == "hello"
	}
	if !call() {
		b.Fatal("the echo call was not allowed and answered")
	}
	const clients = 32
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	b.ReportAllocs()
	wait, cpu := benchMutexWait(), benchCPU()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for range work {
				if !call() {
					b.Error("a call was not allowed and answered")
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric((benchMutexWait()-wait)*1e9/float64(b.N), "mutex-wait-ns/op")
	b.ReportMetric((benchCPU()-cpu)*1e9/float64(b.N), "cpu-ns/op")
}

// benchMutexWait is the time goroutines spent waiting on a sync.Mutex or
// RWMutex so far, in seconds.
func benchMutexWait() float64 {
	s := []metrics.Sample{{Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64 {
		return 0
	}
	return s[0].Value.Float64()
}
