//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// The scripts of the two servers of TestE2EQuitLeavesNoServerProcess. Each
// writes its pid (its process group's id: latch makes every stdio server
// the leader of its own group) to $PIDFILE first.
const (
	// slowServer takes a minute before it becomes the MCP server.
	slowServer = `echo $$ >> "$PIDFILE"; sleep 60; exec "$MEM_BIN"`
	// bgServer leaves a child in the background and becomes the server.
	bgServer = `echo $$ >> "$PIDFILE"; sleep 3001.5 & exec "$MEM_BIN"`
)

// quitPoint is one moment to quit latch at: after of the slow server's
// start, or after of pressing Enter on /connect for the one with a
// background child.
type quitPoint struct {
	server string // "slow" or "bg"
	after  time.Duration
}

// quitPoints are 10 points over the first 2.5 s of the slow server and 10
// over the 40 ms after /connect.
func quitPoints() []quitPoint {
	var ps []quitPoint
	for _, ms := range []int{0, 50, 150, 300, 500, 750, 1000, 1500, 2000, 2500} {
		ps = append(ps, quitPoint{"slow", time.Duration(ms) * time.Millisecond})
	}
	for i := range 10 {
		ps = append(ps, quitPoint{"bg", time.Duration(i) * 40 * time.Millisecond / 9})
	}
	return ps
}

// TestE2EQuitLeavesNoServerProcess runs the built binary in a pty with one
// stdio server, quits with Ctrl+C at each of 20 points in time (during the
// slow server's start, and right after /connect of a server that leaves a
// child in the background), then goes on pressing Ctrl+C, as an impatient
// person does while latch closes, until it exits. latch must exit by
// itself, and no process of the server's process groups (nor any process
// that carries the point's mark, wherever it went) may be left.
func TestE2EQuitLeavesNoServerProcess(t *testing.T) {
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	fake := newFake(t)
	for _, p := range quitPoints() {
		t.Run(fmt.Sprintf("%s+%s", p.server, p.after), func(t *testing.T) {
			t.Parallel()
			quitAt(t, bin, mem, fake.Host(), p)
		})
	}
}

// quitAt runs one quit point.
func quitAt(t *testing.T, bin, mem, host string, p quitPoint) {
	r := startWithServer(t, bin, mem, host, p.server)
	switch p.server {
	case "slow":
		waitPids(t, r.pidfile, 1)
	case "bg":
		r.tm.waitScreen(t, 30*time.Second, "the server connected", func(s string) bool {
			return strings.Contains(statusLine(s), "servers 1/1")
		})
		r.tm.typeKeys("/connect bg")
		r.tm.waitScreen(t, 5*time.Second, "the command in the input line", func(s string) bool {
			return inputText(s) == "/connect bg"
		})
		r.tm.sendKey(keyEnter)
	}
	time.Sleep(p.after)
	// Ctrl+C, then more until latch is gone: once the screen is restored,
	// the terminal turns them into SIGINT.
	r.quitAndCheck(t, func() { _, _ = r.tm.master.Write([]byte(keyCtrlC)) }, 0)
}

// TestE2ESignalLeavesNoServerProcess sends latch, while the slow server
// starts, the signals that end it from outside (SIGHUP when its terminal
// goes away, SIGTERM), again and again until it exits, and runs -p with
// Ctrl+C likewise: every time, latch exits by itself and no process of
// the server is left.
func TestE2ESignalLeavesNoServerProcess(t *testing.T) {
	mem := mcptestutil.NPMBin(t, "mcp-server-memory")
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	fake := newFake(t)
	if signal.Ignored(syscall.SIGHUP) {
		// Run under nohup (or a job that ignores it), the tests would
		// pass their ignoring on to latch, which then rightly stays
		// ignoring SIGHUP (quitSignals): caught here instead, as a
		// caught signal is not passed on, latch starts with it as a
		// terminal's child does.
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
	for _, c := range []struct {
		name   string
		sig    syscall.Signal // sent to latch; 0: Ctrl+C typed
		prompt bool           // latch -p
		code   int            // the exit status
	}{
		{"SIGHUP", syscall.SIGHUP, false, exitOK},
		{"SIGTERM", syscall.SIGTERM, false, exitOK},
		{"-p Ctrl+C", 0, true, exitError},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var args []string
			if c.prompt {
				args = []string{"-p", "hello"}
			}
			r := startWithServer(t, bin, mem, fake.Host(), "slow", args...)
			waitPids(t, r.pidfile, 1)
			time.Sleep(300 * time.Millisecond)
			r.quitAndCheck(t, func() {
				if c.sig == 0 {
					_, _ = r.tm.master.Write([]byte(keyCtrlC))
				} else {
					_ = syscall.Kill(r.tm.Pid, c.sig) // this test's own child
				}
			}, c.code)
		})
	}
}

// serverRun is latch in a pty with one stdio server, "slow" or "bg".
type serverRun struct {
	tm      *ptyTerm
	pidfile string // each server process writes its pid here
	mark    string // LATCH_QUIT_MARK of the server's processes
}

// startWithServer starts latch (with args after --model and --config)
// with the server. Whatever of the server a failing run leaves is killed
// when the test ends, by process group.
func startWithServer(t *testing.T, bin, mem, host, server string, args ...string) *serverRun {
	t.Helper()
	root := t.TempDir()
	r := &serverRun{pidfile: filepath.Join(root, "pids"), mark: fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())}
	script := slowServer
	if server == "bg" {
		script = bgServer
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{server: map[string]any{
		"command": "/bin/sh", "args": []string{"-c", script},
		"env": map[string]string{"PIDFILE": r.pidfile, "MEM_BIN": mem, "LATCH_QUIT_MARK": r.mark,
			"MEMORY_FILE_PATH": filepath.Join(root, "memory.jsonl")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "latch.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pr := range leftovers(r.mark, readPids(r.pidfile)) {
			if pr.pgid > 1 {
				_ = syscall.Kill(-pr.pgid, syscall.SIGKILL)
			}
		}
	})
	r.tm = startLatch(t, bin, ptyOptions{Rows: 24, Cols: 100, Host: host,
		Args: append([]string{"--model", e2eModel, "--config", path}, args...)})
	return r
}

// quitAndCheck calls quit, and again every 20 ms until latch exits; then
// checks that latch exited by itself with status code, and that no
// process of the server is left.
func (r *serverRun) quitAndCheck(t *testing.T, quit func(), code int) {
	t.Helper()
	var st *os.ProcessState
	deadline := time.Now().Add(mcptestutil.HangBound(30 * time.Second))
	for st == nil && time.Now().Before(deadline) {
		quit()
		st = r.tm.waitExit(20 * time.Millisecond)
	}
	if st == nil {
		t.Fatalf("latch did not exit within 30 s; screen:\n%s", dumpScreen(r.tm.screen()))
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Errorf("latch was killed by %v while it closed, instead of exiting by itself", ws.Signal())
	} else if st.ExitCode() != code {
		t.Errorf("exit status %d, want %d; screen:\n%s", st.ExitCode(), code, dumpScreen(r.tm.screen()))
	}
	// A process killed at the very end may take a moment to be gone.
	var left []groupProc
	mcptestutil.Eventually(mcptestutil.HangBound(3*time.Second), func() bool {
		left = leftovers(r.mark, readPids(r.pidfile))
		return len(left) == 0
	})
	if len(left) > 0 {
		t.Errorf("processes of the server left after latch exited (server pids %v): %+v", readPids(r.pidfile), left)
	}
}

// groupProc is a live process and its process group.
type groupProc struct {
	pid, pgid int
	cmdline   string
}

// leftovers lists every live process (zombies aside: nothing may reap
// them here) that is in one of the process groups pgids, or whose
// environment holds LATCH_QUIT_MARK=mark, whoever its parent is by now.
func leftovers(mark string, pgids []int) []groupProc {
	want := []byte("\x00LATCH_QUIT_MARK=" + mark + "\x00")
	entries, _ := os.ReadDir("/proc")
	var out []groupProc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		i := bytes.LastIndexByte(stat, ')')
		if err != nil || i < 0 {
			continue // gone meanwhile
		}
		// After the command's ")": state, ppid, pgrp.
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 3 || f[0] == "Z" {
			continue
		}
		pgid, _ := strconv.Atoi(f[2])
		environ, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		marked := bytes.Contains(append(append([]byte{0}, environ...), 0), want)
		if !marked && !slices.Contains(pgids, pgid) {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		out = append(out, groupProc{pid, pgid, strings.ReplaceAll(string(cmdline), "\x00", " ")})
	}
	return out
}

// readPids reads the pids the servers wrote to the pidfile so far.
func readPids(path string) []int {
	data, _ := os.ReadFile(path)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitPids waits until n servers have written their pid.
func waitPids(t *testing.T, path string, n int) {
	t.Helper()
	mcptestutil.WaitFor(t, 20*time.Second, fmt.Sprintf("%d pids in %s", n, path), func() bool {
		return len(readPids(path)) >= n
	})
}
