//go:build !windows

package mcp

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// The tests in this file quit (CloseAll) or /close a stdio server at every
// stage of its connect and check that no process latch started is left:
// the wrapper, the server, and the server's own child.

// quitMark returns a unique environment variable (NAME=VALUE) for the
// processes of one test: they inherit it, so they can be found in /proc
// whoever their parent is by then (a leaked one is reparented to init).
func quitMark(t *testing.T) (name, value string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("finds the servers' processes through /proc")
	}
	return "LATCH_QUIT_MARK", fmt.Sprintf("%d-%d-%s", os.Getpid(), time.Now().UnixNano(), t.Name())
}

// markedProcs lists every live process whose environment holds
// name=value, with its command line.
func markedProcs(t *testing.T, name, value string) []peerProc {
	t.Helper()
	want := []byte("\x00" + name + "=" + value + "\x00")
	var out []peerProc
	for pid := range peerProcs(t) {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(append(append([]byte{0}, environ...), 0), want) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, peerProc{pid, strings.ReplaceAll(string(cmdline), "\x00", " ")})
	}
	return out
}

// killMarked kills, at the end of the test, whatever marked process is
// still alive, so that a failing test leaves nothing behind either.
func killMarked(t *testing.T, name, value string) {
	t.Cleanup(func() {
		for _, p := range markedProcs(t, name, value) {
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	})
}

// waitMarked waits until at least n marked processes run and returns them.
func waitMarked(t *testing.T, name, value string, n int, d time.Duration) []peerProc {
	t.Helper()
	var procs []peerProc
	if !mcptestutil.Eventually(d, func() bool { procs = markedProcs(t, name, value); return len(procs) >= n }) {
		t.Fatalf("want %d marked processes, have %+v", n, procs)
	}
	return procs
}

// assertNoneLeft checks that no marked process is alive, now and for a
// moment after (a connect that outlived the close would start one late).
func assertNoneLeft(t *testing.T, name, value string, watch time.Duration) {
	t.Helper()
	deadline := time.Now().Add(watch)
	for {
		// A process being killed may take a moment to be gone.
		var left []peerProc
		mcptestutil.Eventually(mcptestutil.HangBound(2*time.Second), func() bool { left = markedProcs(t, name, value); return len(left) == 0 })
		if len(left) > 0 {
			t.Fatalf("processes left after the close: %+v", left)
		}
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// quitStage configures a stdio server that is in a given stage of its
// connect for a while, and says how to tell that it got there.
type quitStage struct {
	name  string
	cfg   func(t *testing.T, fake, pidfile string) ServerConfig
	procs int // marked processes running once the stage is reached
	ready func(t *testing.T, m *Manager, pidfile string) bool
}

var quitStages = []quitStage{
	{
		// The wrapper runs; the server has not been exec'd yet.
		name: "spawned",
		cfg: func(t *testing.T, fake, pidfile string) ServerConfig {
			return ServerConfig{Name: "slow", Transport: TransportStdio, Command: "sh",
				Args: []string{"-c", "sleep 3600; exec " + fake + " -grandchild -pidfile " + pidfile}}
		},
		procs: 2, // sh and sleep
		ready: func(*testing.T, *Manager, string) bool { return true },
	},
	{
		// The server runs (with its child) and never answers the handshake.
		name: "handshaking",
		cfg: func(t *testing.T, fake, pidfile string) ServerConfig {
			return ServerConfig{Name: "slow", Transport: TransportStdio, Command: fake,
				Args: []string{"-hang-handshake", "-grandchild", "-pidfile", pidfile}}
		},
		procs: 2,
		ready: func(t *testing.T, _ *Manager, pidfile string) bool {
			_, err := os.Stat(pidfile)
			return err == nil
		},
	},
	{
		// The handshake is done; the first tools/list is not answered.
		name: "listing tools",
		cfg: func(t *testing.T, fake, pidfile string) ServerConfig {
			return ServerConfig{Name: "slow", Transport: TransportStdio, Command: fake,
				Args: []string{"-list-delay", "1h", "-grandchild", "-pidfile", pidfile}}
		},
		procs: 2,
		ready: func(t *testing.T, m *Manager, _ string) bool { return logsContain(t, m, "slow", "tools/list, waiting") },
	},
}

// TestQuitAtEveryStageOfAConnect: CloseAll (quitting) and Close(name), at
// each stage of a stdio server's connect, stop every process it started.
func TestQuitAtEveryStageOfAConnect(t *testing.T) {
	if testing.Short() {
		t.Skip("long (a server killed at every stage of a connect): make test-e2e runs it")
	}
	fake := mcptestutil.BuildFakeMCP(t)
	for _, stage := range quitStages {
		for _, how := range []string{"CloseAll", "Close"} {
			t.Run(stage.name+"/"+how, func(t *testing.T) {
				mark, value := quitMark(t)
				killMarked(t, mark, value)
				pidfile := filepath.Join(t.TempDir(), "pids")
				cfg := stage.cfg(t, fake, pidfile)
				cfg.Env = map[string]string{mark: value}
				// Each stage would last an hour, and so would the connect
				// timeout: the close ending within the hang bound shows
				// it waited for neither.
				cfg.ConnectTimeout = neverTimeout
				m := New([]ServerConfig{cfg}, Options{})
				t.Cleanup(m.CloseAll)
				m.Start()
				procs := waitMarked(t, mark, value, stage.procs, 10*time.Second)
				if !mcptestutil.Eventually(mcptestutil.HangBound(10*time.Second), func() bool { return stage.ready(t, m, pidfile) }) {
					t.Fatalf("the server never reached the stage; processes %+v", procs)
				}
				if st, _ := m.Status("slow"); st.State != StateConnecting {
					t.Fatalf("state %s, want connecting", st.Summary())
				}
				procs = markedProcs(t, mark, value)
				var err error
				endsWithin(t, how+" while "+stage.name, func() {
					if how == "CloseAll" {
						m.CloseAll()
					} else {
						err = m.Close("slow")
					}
				})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s while %s; processes before: %+v", how, stage.name, procs)
				assertNoneLeft(t, mark, value, time.Second)
				if st, _ := m.Status("slow"); st.State != StateClosed {
					t.Errorf("state %s after %s, want closed", st.Summary(), how)
				}
			})
		}
	}
}

// TestQuitRightAfterConnect: quitting at once after Start or a Connect
// (the chat runs /connect in the background) stops what that connect
// starts, even when it had not got going when CloseAll was called.
func TestQuitRightAfterConnect(t *testing.T) {
	if testing.Short() {
		t.Skip("long (servers and their grandchildren closed right after a connect): make test-e2e runs it")
	}
	fake := mcptestutil.BuildFakeMCP(t)
	t.Run("Reconnect", func(t *testing.T) {
		// A /connect of a connected server closes the old connection
		// first, which takes a while for one that ignores EOF: quit then.
		mark, value := quitMark(t)
		killMarked(t, mark, value)
		cfg := ServerConfig{Name: "s", Transport: TransportStdio, Command: fake,
			Args: []string{"-ignore-eof", "-grandchild"}, Env: map[string]string{mark: value}}
		m := New([]ServerConfig{cfg}, Options{})
		t.Cleanup(m.CloseAll)
		m.Start()
		waitReady(t, m, "s", 10*time.Second)
		go m.Connect("s")
		time.Sleep(100 * time.Millisecond)
		start := time.Now()
		m.CloseAll()
		t.Logf("CloseAll during a reconnect took %s", time.Since(start))
		assertNoneLeft(t, mark, value, 1500*time.Millisecond)
		if st, _ := m.Status("s"); st.State != StateClosed {
			t.Errorf("%s after CloseAll", st.Summary())
		}
	})
	for _, how := range []string{"Start", "Connect"} {
		t.Run(how, func(t *testing.T) {
			mark, value := quitMark(t)
			killMarked(t, mark, value)
			var cfgs []ServerConfig
			for i := range 4 {
				cfgs = append(cfgs, ServerConfig{Name: fmt.Sprintf("s%d", i), Transport: TransportStdio, Command: "sh",
					Args: []string{"-c", "sleep 3; exec " + fake + " -grandchild"},
					Env:  map[string]string{mark: value}, Disabled: how == "Connect"})
			}
			m := New(cfgs, Options{})
			t.Cleanup(m.CloseAll)
			if how == "Start" {
				m.Start()
			} else {
				for _, c := range cfgs {
					go m.Connect(c.Name)
				}
			}
			start := time.Now()
			m.CloseAll()
			t.Logf("CloseAll right after %s took %s", how, time.Since(start))
			// A connect that outlived CloseAll would start its wrapper now.
			assertNoneLeft(t, mark, value, 1500*time.Millisecond)
			for _, st := range m.Statuses() {
				if st.State == StateConnecting || st.State == StateConnected {
					t.Errorf("%s: %s after CloseAll", st.Name, st.Summary())
				}
			}
		})
	}
}
