package mcp

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// TestPeerEverythingRoots: server-everything over stdio and streamable HTTP
// asks latch for its roots (get-roots-list shows them), hears /roots add
// (roots/list_changed: it fetches the list again), and takes
// logging/setLevel.
func TestPeerEverythingRoots(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range []string{TransportStdio, TransportHTTP} {
		t.Run(transport, func(t *testing.T) {
			a := filepath.Join(t.TempDir(), "first root")
			b := filepath.Join(t.TempDir(), "zweite")
			for _, d := range []string{a, b} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			cfg := peerEverything(t, bin, transport, 30*time.Second)
			m := New([]ServerConfig{cfg}, Options{Roots: []string{a}})
			t.Cleanup(m.CloseAll)
			m.Start()
			waitState(t, m, "every", StateConnected, 15*time.Second)
			mcptestutil.WaitFor(t, 10*time.Second, "every__get-roots-list", func() bool {
				_, ok := m.Lookup("every__get-roots-list")
				return ok
			})
			list := func() string {
				res, err := m.Call(context.Background(), "every__get-roots-list", nil, "")
				if err != nil || res.IsError {
					t.Fatalf("get-roots-list: %v %+v", err, res)
				}
				return res.Text
			}
			if got := list(); !strings.Contains(got, RootURI(a)) || !strings.Contains(got, "first root") {
				t.Fatalf("get-roots-list: %q, want %s in it", got, RootURI(a))
			}
			if _, n, err := m.AddRoot(b); err != nil || n != 1 {
				t.Fatalf("AddRoot: %d servers told, %v", n, err)
			}
			var got string
			if !mcptestutil.Eventually(mcptestutil.HangBound(10*time.Second), func() bool { got = list(); return strings.Contains(got, RootURI(b)) }) {
				t.Errorf("after /roots add, get-roots-list: %q, want %s in it", got, RootURI(b))
			}
			if err := m.SetLogLevel("every", "debug"); err != nil {
				t.Errorf("logging/setLevel: %v", err)
			}
		})
	}
}
