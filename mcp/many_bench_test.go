package mcp

import (
	"fmt"
	"latch/mcp/mcptestutil"
	"testing"
	"time"
)

// BenchmarkManyServers starts and closes n stdio servers that cannot start
// (what quitting with a large config costs). It grows linearly with n:
//
//	go test -run '^$' -bench ManyServers -benchtime 3x ./mcp/
func BenchmarkManyServers(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfgs := make([]ServerConfig, n)
			for i := range cfgs {
				cfgs[i] = ServerConfig{Name: fmt.Sprintf("s%05d", i), Transport: TransportStdio, Command: "/nonexistent/latch-bench"}
			}
			for b.Loop() {
				m := New(cfgs, Options{})
				m.Start()
				if !mcptestutil.Eventually(time.Minute, func() bool {
					for _, st := range m.Statuses() {
						if st.State != StateFailed {
							return false
						}
					}
					return true
				}) {
					b.Fatal("the servers did not all fail")
				}
				m.CloseAll()
			}
		})
	}
}
