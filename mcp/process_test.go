//go:build !windows

package mcp

import (
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// The tests in this file check that a stdio server's whole process group
// ends with it: the server and the children it spawned (as npx and uvx do).

// pidServer configures the fake server as name, writing its pid and its
// grandchild's to a file in dir.
func pidServer(t *testing.T, dir, name string, flags ...string) (ServerConfig, string) {
	t.Helper()
	pidfile := filepath.Join(dir, name+".pid")
	return fakeServer(t, name, append([]string{"-pidfile", pidfile}, flags...)...), pidfile
}

// readPids reads a pidfile and checks it names the server and its grandchild,
// both alive.
func readPids(t *testing.T, pidfile string) []int {
	t.Helper()
	pids := mcptestutil.ReadPidfile(t, pidfile, 10*time.Second)
	if len(pids) != 2 {
		t.Fatalf("pidfile %s: %v, want the server and its grandchild", pidfile, pids)
	}
	for _, pid := range pids {
		if !mcptestutil.ProcessAlive(pid) {
			t.Fatalf("pid %d is not running", pid)
		}
	}
	return pids
}

// killLeftovers kills pids that a failed test leaves behind (only then:
// a pid that ended may since have been reused).
func killLeftovers(t *testing.T, pids *[]int) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, pid := range *pids {
			if mcptestutil.ProcessAlive(pid) {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

// assertGone checks that every pid ends within d.
func assertGone(t *testing.T, what string, pids []int, d time.Duration) {
	t.Helper()
	for _, pid := range pids {
		if !mcptestutil.WaitProcessGone(pid, d) {
			t.Errorf("%s: pid %d still alive %s later", what, pid, d)
		}
	}
}

func TestCloseEndsServerAndGrandchild(t *testing.T) {
	dir := t.TempDir()
	cfg, pidfile := pidServer(t, dir, "wrapped", "-grandchild", "-grandchild-stdio")
	m, ev := startFake(t, Options{}, cfg)
	var all []int
	killLeftovers(t, &all)
	waitReady(t, m, "wrapped", 10*time.Second)
	pids := readPids(t, pidfile)
	all = append(all, pids...)

	start := time.Now()
	if err := m.Close("wrapped"); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %s", time.Since(start))
	// Close returns once the group is killed: nothing may be left.
	assertGone(t, "after Close", pids, time.Second)
	st, _ := m.Status("wrapped")
	if st.State != StateClosed || st.Summary() != "closed" || len(m.Tools()) != 0 {
		t.Fatalf("after Close: %+v, tools %v", st, m.Tools())
	}
	seq := statusEvents(ev, "wrapped")
	if last := seq[len(seq)-1]; last.State != StateClosed {
		t.Fatalf("last event %+v", last)
	}
	// Closed stays closed: the process ending is not a "disconnect".
	time.Sleep(100 * time.Millisecond)
	if st, _ := m.Status("wrapped"); st.State != StateClosed {
		t.Fatalf("later: %s", st.Summary())
	}
}

func TestCloseAllEndsEveryGroup(t *testing.T) {
	dir := t.TempDir()
	var cfgs []ServerConfig
	var files []string
	for i := range 3 {
		cfg, f := pidServer(t, dir, fmt.Sprintf("w%d", i), "-grandchild", "-grandchild-stdio")
		cfgs = append(cfgs, cfg)
		files = append(files, f)
	}
	cfgs = append(cfgs, fakeServer(t, "plain"))
	m, _ := startFake(t, Options{}, cfgs...)
	var all []int
	killLeftovers(t, &all)
	for _, c := range cfgs {
		waitReady(t, m, c.Name, 10*time.Second)
	}
	for _, f := range files {
		all = append(all, readPids(t, f)...)
	}
	start := time.Now()
	m.CloseAll()
	t.Logf("CloseAll of %d servers took %s", len(cfgs), time.Since(start))
	assertGone(t, "after CloseAll", all, time.Second)
	for _, st := range m.Statuses() {
		if st.State != StateClosed {
			t.Errorf("%s: %s", st.Name, st.Summary())
		}
	}
	if len(m.Tools()) != 0 {
		t.Errorf("tools after CloseAll: %v", m.Tools())
	}
}

func TestCloseAllStubbornServersIsBounded(t *testing.T) {
	dir := t.TempDir()
	var cfgs []ServerConfig
	var files []string
	for i := range 4 {
		cfg, f := pidServer(t, dir, fmt.Sprintf("stubborn%d", i), "-ignore-eof", "-ignore-term", "-grandchild")
		cfgs = append(cfgs, cfg)
		files = append(files, f)
	}
	m, _ := startFake(t, Options{}, cfgs...)
	var all []int
	killLeftovers(t, &all)
	for _, c := range cfgs {
		waitReady(t, m, c.Name, 10*time.Second)
	}
	for _, f := range files {
		all = append(all, readPids(t, f)...)
	}
	// The servers ignore EOF and SIGTERM and would run for ever: CloseAll
	// returning at all shows that it killed them instead of waiting. (How
	// long its grace before the kill lasts is the code's constant.)
	endsWithin(t, "CloseAll of stubborn servers", m.CloseAll)
	for _, pid := range all {
		if mcptestutil.ProcessAlive(pid) {
			t.Errorf("pid %d alive after CloseAll", pid)
		}
	}
	for _, st := range m.Statuses() {
		if st.State != StateClosed {
			t.Errorf("%s: %s", st.Name, st.Summary())
		}
	}
}

func TestCrashedServerTakesItsGrandchild(t *testing.T) {
	for _, stdio := range []bool{false, true} {
		t.Run(fmt.Sprintf("grandchild-stdio=%v", stdio), func(t *testing.T) {
			flags := []string{"-grandchild", "-crash-after", "1s"}
			if stdio {
				flags = append(flags, "-grandchild-stdio")
			}
			cfg, pidfile := pidServer(t, t.TempDir(), "crashy", flags...)
			m, _ := startFake(t, Options{}, cfg)
			var all []int
			killLeftovers(t, &all)
			pids := readPids(t, pidfile)
			all = append(all, pids...)
			st := waitState(t, m, "crashy", StateDisconnected, 10*time.Second)
			if st.ExitStatus != "exit status 3" || !tailContains(st.StderrTail, "fatal: simulated crash") {
				t.Fatalf("status %+v", st)
			}
			// The group is killed as the crash is noticed.
			assertGone(t, "after the crash", pids, 2*time.Second)
			if st, _ := m.Status("crashy"); st.State != StateDisconnected {
				t.Fatalf("later: %s", st.Summary())
			}
		})
	}
}

// TestCloseWhileConnecting quits while a stubborn server is still in its
// handshake: its process must not outlive CloseAll.
func TestCloseWhileConnecting(t *testing.T) {
	cfg, pidfile := pidServer(t, t.TempDir(), "starting", "-hang-handshake", "-ignore-eof", "-ignore-term", "-grandchild")
	cfg.ConnectTimeout = neverTimeout
	m, ev := startFake(t, Options{}, cfg)
	var all []int
	killLeftovers(t, &all)
	pids := readPids(t, pidfile)
	all = append(all, pids...)
	if st, _ := m.Status("starting"); st.State != StateConnecting {
		t.Fatalf("state %s", st.Summary())
	}
	// The handshake would never end, nor the server on EOF or SIGTERM,
	// and the connect timeout is far beyond the bound: CloseAll returning
	// at all shows that it gave up the connect and killed the server.
	endsWithin(t, "CloseAll during the handshake", m.CloseAll)
	for _, pid := range pids {
		if mcptestutil.ProcessAlive(pid) {
			t.Errorf("pid %d alive after CloseAll", pid)
		}
	}
	// It stays closed: the abandoned connect reports nothing more.
	time.Sleep(100 * time.Millisecond)
	if st, _ := m.Status("starting"); st.State != StateClosed {
		t.Fatalf("state %s", st.Summary())
	}
	seq := statusEvents(ev, "starting")
	if got := stateNamesOf(seq); got[len(got)-1] != "closed" {
		t.Fatalf("status events %v", got)
	}
}
