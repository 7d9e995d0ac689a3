package mcp

import (
	"testing"
	"time"
)

// TestEraAutoWaitsForASlowStdioServer: protocol auto finds the era a
// stdio server speaks however long it takes to start (Node's start-up
// alone is longer than the probe's quarter second), and still takes one
// that ignores the probe for a legacy one as soon as it is seen to read
// past it.
func TestEraAutoWaitsForASlowStdioServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  func(t *testing.T) ServerConfig
		want string
	}{
		{"both eras, slow to start", func(t *testing.T) ServerConfig {
			return fakeServer(t, "slow", "-start-delay", "600ms")
		}, ProtocolModern},
		{"ignores the probe, slow to start", func(t *testing.T) ServerConfig {
			return fakeServer(t, "slow", "-start-delay", "600ms", "-legacy", "ignore")
		}, ProtocolLegacy},
		{"refuses the probe, slow to start", func(t *testing.T) ServerConfig {
			return fakeServer(t, "slow", "-start-delay", "600ms", "-legacy", "answer")
		}, ProtocolLegacy},
		{"the TypeScript SDK v2", func(t *testing.T) ServerConfig {
			return ServerConfig{Name: "slow", Transport: TransportStdio, Command: "node", Args: []string{v2Server(t), "stdio"}}
		}, ProtocolModern},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg(t)
			cfg.ConnectTimeout = 20 * time.Second
			start := time.Now()
			m, _ := startFake(t, Options{}, cfg)
			st := waitReady(t, m, "slow", 30*time.Second)
			t.Logf("connected on %s in %v", st.ProtocolVersion, time.Since(start).Round(time.Millisecond))
			if st.ProtocolVersion != tc.want {
				t.Fatalf("protocol %q, want %q", st.ProtocolVersion, tc.want)
			}
			if res := mustCall(t, m, "slow__echo", map[string]any{"message": "era"}); res.Text != "era" {
				t.Fatalf("echo: %q", res.Text)
			}
		})
	}
}
