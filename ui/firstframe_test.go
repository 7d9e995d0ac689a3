package ui

import (
	"fmt"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// BenchmarkFirstFrame is the time from building the session to the first
// drawn frame, with no MCP servers and with eight that take 300 ms each to
// start: servers connect in the background, so the two should be about
// equal.
func BenchmarkFirstFrame(b *testing.B) {
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	b.Cleanup(srv.Close)
	slow := func(b *testing.B) []session.ServerConfig {
		bin := mcptestutil.BuildFakeMCP(b)
		var cfgs []session.ServerConfig
		for i := range 8 {
			cfgs = append(cfgs, session.ServerConfig{Name: fmt.Sprintf("slow%d", i), Command: bin, Args: []string{"-start-delay", "300ms"}})
		}
		return cfgs
	}
	for _, tc := range []struct {
		name    string
		servers func(*testing.B) []session.ServerConfig
	}{
		{"servers=0", func(*testing.B) []session.ServerConfig { return nil }},
		{"servers=8slow", slow},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cfgs := tc.servers(b)
			b.ResetTimer()
			for range b.N {
				sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b", Servers: cfgs})
				sess.StartServers()
				m := New(Options{Backend: sess, Events: sess.Subscribe(), Styles: themes.Default(), FrameInterval: -1})
				m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
				if m.View() == "" {
					b.Fatal("empty first frame")
				}
				b.StopTimer()
				// The servers did come up (and are not left half-connected
				// when the session closes).
				waitServersUp(b, sess, len(cfgs))
				sess.Close()
				b.StartTimer()
			}
		})
	}
}

// waitServersUp waits until n servers of sess are connected.
func waitServersUp(b *testing.B, sess *session.Session, n int) {
	b.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		up := 0
		for _, st := range sess.Servers() {
			switch st.State {
			case session.StateConnected:
				up++
			case session.StateFailed, session.StateDisconnected:
				b.Fatalf("%s: %s", st.Name, st.Summary())
			}
		}
		if up == n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d servers connected after 30s", up, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
