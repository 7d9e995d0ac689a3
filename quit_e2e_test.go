//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
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
	root := t.TempDir()
	pidfile := filepath.Join(root, "pids")
	mark := fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano())
	script := slowServer
	if p.server == "bg" {
		script = bgServer
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{p.server: map[string]any{
		"command": "/bin/sh", "args": []string{"-c", script},
		"env": map[string]string{"PIDFILE": pidfile, "MEM_BIN": mem, "LATCH_QUIT_MARK": mark,
			"MEMORY_FILE_PATH": filepath.Join(root, "memory.jsonl")},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "latch.json")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	// Whatever a failing run leaves is killed, by process group.
	t.Cleanup(func() {
		for _, pr := range leftovers(mark, readPids(pidfile)) {
			if pr.pgid > 1 {
				_ = syscall.Kill(-pr.pgid, syscall.SIGKILL)
			}
		}
	})
	tm := startLatch(t, bin, ptyOptions{Rows: 24, Cols: 100, Host: host,
		Args: []string{"--model", e2eModel, "--config", path}})

	switch p.server {
	case "slow":
		waitPids(t, pidfile, 1)
	case "bg":
		tm.waitScreen(t, 30*time.Second, "the server connected", func(s string) bool {
			return strings.Contains(statusLine(s), "servers 1/1")
		})
		tm.typeKeys("/connect bg")
		tm.waitScreen(t, 5*time.Second, "the command in the input line", func(s string) bool {
			return inputText(s) == "/connect bg"
		})
		tm.sendKey(keyEnter)
	}
	time.Sleep(p.after)
	tm.sendKey(keyCtrlC)

	// More Ctrl+C until latch is gone: once the screen is restored, the
	// terminal turns them into SIGINT.
	var st *os.ProcessState
	deadline := time.Now().Add(30 * time.Second)
	for st == nil && time.Now().Before(deadline) {
		st = tm.waitExit(20 * time.Millisecond)
		if st == nil {
			_, _ = tm.master.Write([]byte(keyCtrlC))
		}
	}
	if st == nil {
		t.Fatalf("latch did not exit within 30 s of Ctrl+C; screen:\n%s", dumpScreen(tm.screen()))
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Errorf("latch was killed by %v while it closed, instead of exiting by itself", ws.Signal())
	} else if st.ExitCode() != 0 {
		t.Errorf("exit status %d, want 0; screen:\n%s", st.ExitCode(), dumpScreen(tm.screen()))
	}

	// A process killed at the very end may take a moment to be gone.
	var left []groupProc
	mcptestutil.Eventually(3*time.Second, func() bool {
		left = leftovers(mark, readPids(pidfile))
		return len(left) == 0
	})
	if len(left) > 0 {
		t.Errorf("processes of the server left after latch exited (server pids %v): %+v", readPids(pidfile), left)
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
