package cli

// latch serve --stdio killed (SIGKILL) leaves its stdin as it found it:
// blocking, for the client and every other process that shares the pipe
// or the socket's open file description (O_NONBLOCK is the description's,
// not a descriptor's, and a killed latch sets nothing back). The parent
// here holds a copy of latch's end, as a client or a shell pipeline does,
// kills latch at a few points of a session, and then reads that end.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"latch/mcp/mcptestutil"
)

func TestServeKillNineLeavesStdinBlocking(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills latch serve six times")
	}
	fake := mcptestutil.BuildFakeMCP(t)
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"up": map[string]any{"command": fake, "allow": []string{"echo", "slow"}}}}, false)
	for _, kind := range []string{"pipe", "socketpair"} {
		for _, point := range []string{"before the handshake", "mid-call", "idle"} {
			t.Run(kind+"/"+point, func(t *testing.T) {
				stdin, client := stdinChannel(t, kind)
				killServeAt(t, r, stdin, client, point)
				fd := descriptor(t, stdin)
				if fdNonBlocking(t, fd) {
					t.Fatalf("latch's stdin (a %s) was left non-blocking after kill -9 %s", kind, point)
				}
				readBlocks(t, fd, client)
			})
		}
	}
	noDescriptorClosedLater(t)
}

// noDescriptorClosedLater checks that what the test leaves to the
// collector closes nothing: files opened now take the numbers the test
// freed, and after two collections (finalizers run) each is still open.
// A second *os.File made from a number the test closed itself failed
// this, and in a full run closed other tests' descriptors.
func noDescriptorClosedLater(t *testing.T) {
	t.Helper()
	var files []*os.File
	for range 20 {
		f, err := os.Open(os.DevNull)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files = append(files, f)
	}
	runtime.GC()
	runtime.GC()
	for _, f := range files {
		if _, err := unix.FcntlInt(uintptr(descriptor(t, f)), unix.F_GETFD, 0); err != nil {
			t.Errorf("descriptor %d, opened after the test, was closed under it: %v", descriptor(t, f), err)
		}
	}
}

// stdinChannel is latch's stdin, blocking, as a pipe's read end (the
// client's is the write end) or as one end of a socket pair (the
// client's is the other); both are the parent's, closed at the test's
// end. The stdin end has one owner, the *os.File: a second (a file made
// from its number) would close the number again when collected, by then
// another test's descriptor (a pty, a listener, a folder being removed).
func stdinChannel(t *testing.T, kind string) (stdin *os.File, client int) {
	t.Helper()
	var p [2]int
	var err error
	if kind == "pipe" {
		err = unix.Pipe2(p[:], unix.O_CLOEXEC)
	} else {
		p, err = unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	}
	if err != nil {
		t.Fatal(err)
	}
	// NewFile leaves a blocking descriptor's flags as they are.
	stdin = os.NewFile(uintptr(p[0]), "stdin")
	t.Cleanup(func() { _ = stdin.Close(); _ = unix.Close(p[1]) })
	return stdin, p[1]
}

// descriptor is f's number, for system calls made on it while f is open;
// Fd is not used, as it would make the descriptor blocking.
func descriptor(t *testing.T, f *os.File) int {
	t.Helper()
	fd, ok := rawFd(f)
	if !ok {
		t.Fatalf("no descriptor for %s", f.Name())
	}
	return fd
}

// killServeAt starts latch serve --stdio on stdin, speaks to it through
// client, and kills it at point: when it has answered a line but had no
// handshake, while a call runs (the upstream's progress came), or with
// nothing under way after a call.
func killServeAt(t *testing.T, r *promptRig, stdin *os.File, client int, point string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(time.Minute))
	defer cancel()
	or, ow, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = or.Close() }()
	var stderr bytes.Buffer
	cmd := exec.Command(r.bin, "--config", r.cfg, "serve", "--stdio", "--quiet")
	cmd.Env = r.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, ow, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = ow.Close()
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("latch serve's stderr:\n%s", stderr.String())
		}
	}()
	lines := make(chan map[string]any, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(or)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	send := func(msg string) {
		if _, err := unix.Write(client, []byte(msg+"\n")); err != nil {
			t.Fatalf("write to latch: %v", err)
		}
	}
	// await returns the first line from latch that ok accepts.
	await := func(what string, ok func(map[string]any) bool) {
		for {
			select {
			case m, open := <-lines:
				if !open {
					t.Fatalf("latch serve ended before %s", what)
				}
				if ok(m) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("no %s from latch serve", what)
			}
		}
	}
	answer := func(id float64) func(map[string]any) bool {
		return func(m map[string]any) bool { return m["id"] == id }
	}

	if point == "before the handshake" {
		send(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		await("answer to a ping", answer(1))
	} else {
		send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"stdinkill","version":"1"}}}`)
		await("answer to initialize", answer(1))
		send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		if point == "mid-call" {
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"up__slow","arguments":{"seconds":60},"_meta":{"progressToken":"p"}}}`)
			await("progress of the call", func(m map[string]any) bool { return m["method"] == "notifications/progress" })
		} else {
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"up__echo","arguments":{"message":"hi"}}}`)
			await("answer to the call", answer(2))
		}
	}
	if err := cmd.Process.Signal(unix.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("latch serve was not killed: %v", err)
	}
}

// readBlocks checks that a read of fd, which holds nothing, waits in the
// kernel (it does not fail with EAGAIN) until the client writes, and then
// gives what the client wrote.
func readBlocks(t *testing.T, fd, client int) {
	t.Helper()
	type result struct {
		got string
		err error
	}
	tids, done := make(chan int, 1), make(chan result, 1)
	go func() {
		// The read's own thread, to watch it in /proc.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tids <- unix.Gettid()
		buf := make([]byte, 64)
		n, err := unix.Read(fd, buf)
		done <- result{string(buf[:max(n, 0)]), err}
	}()
	tid := <-tids
	// The thread's current system call: its number and its arguments.
	want := fmt.Sprintf("%d 0x%x ", unix.SYS_READ, fd)
	stat := filepath.Join("/proc/self/task", strconv.Itoa(tid), "syscall")
	mcptestutil.WaitFor(t, time.Minute, "the read to wait in the kernel", func() bool {
		select {
		case res := <-done:
			t.Fatalf("a read of the end latch had, holding nothing, returned at once: %q, %v", res.got, res.err)
		default:
		}
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatal(err)
		}
		return strings.HasPrefix(string(b), want)
	})
	if _, err := unix.Write(client, []byte("after\n")); err != nil {
		t.Fatal(err)
	}
	if res := <-done; res.err != nil || res.got != "after\n" {
		t.Fatalf("the blocking read got %q, %v; want what the client wrote", res.got, res.err)
	}
}
