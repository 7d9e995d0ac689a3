//go:build !windows

package cli

import (
	"bufio"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// nonBlocking says whether f's descriptor is non-blocking, read without
// Fd (which would make it blocking).
func nonBlocking(t *testing.T, f *os.File) bool {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var nb bool
	var nerr error
	if err := rc.Control(func(fd uintptr) {
		var flags int
		flags, nerr = unix.FcntlInt(fd, unix.F_GETFL, 0)
		nb = flags&unix.O_NONBLOCK != 0
	}); err != nil || nerr != nil {
		t.Fatal(err, nerr)
	}
	return nb
}

// A pipe given as serve's stdin is read through the poller while serve
// runs (non-blocking; its lines arrive whole), and is blocking again once
// serve ends, for whoever shares it. A regular file is read as it is.
func TestServeStdinPipeReadThroughThePoller(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close(); _ = w.Close() }()
	in, restore := pollableStdin(r)
	f, ok := in.(*os.File)
	if !ok || f == r || !nonBlocking(t, f) {
		t.Fatalf("a pipe was left to blocking reads (%T)", in)
	}
	go func() { _, _ = w.WriteString("{\"a\":1}\n{\"b\":2}\n") }()
	br := bufio.NewReader(in)
	for _, want := range []string{"{\"a\":1}\n", "{\"b\":2}\n"} {
		line, err := br.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("read %q, %v; want %q", line, err, want)
		}
	}
	restore()
	if nonBlocking(t, r) {
		t.Fatal("the pipe is still non-blocking after serve")
	}

	file, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	in, restore = pollableStdin(file)
	defer restore()
	if in != file {
		t.Fatal("a regular file was replaced")
	}
}
