package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// nonBlocking says whether f's descriptor is non-blocking, read without
// Fd (which would make it blocking).
func nonBlocking(t *testing.T, f *os.File) bool {
	t.Helper()
	fd, ok := rawFd(f)
	if !ok {
		t.Fatal("no descriptor")
	}
	return fdNonBlocking(t, fd)
}

// fdNonBlocking says whether fd's description is non-blocking.
func fdNonBlocking(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	return flags&unix.O_NONBLOCK != 0
}

// blockingPipe is a pipe whose ends are blocking, as a client's are, and
// not in Go's poller (os.Pipe makes its ends non-blocking).
func blockingPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	r, w = os.NewFile(uintptr(p[0]), "r"), os.NewFile(uintptr(p[1]), "w")
	t.Cleanup(func() { _ = r.Close(); _ = w.Close() })
	return r, w
}

// blockingSocketPair is a connected pair of blocking stream sockets.
func blockingSocketPair(t *testing.T) (mine, theirs *os.File) {
	t.Helper()
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	mine, theirs = os.NewFile(uintptr(p[0]), "mine"), os.NewFile(uintptr(p[1]), "theirs")
	t.Cleanup(func() { _ = mine.Close(); _ = theirs.Close() })
	return mine, theirs
}

// readsLines checks that in gives the lines written to w, whole, and the
// end once w is closed, while stdin's description stays blocking.
func readsLines(t *testing.T, stdin *os.File, in io.Reader, w *os.File) {
	t.Helper()
	go func() {
		_, _ = w.WriteString("{\"a\":1}\n{\"b\":2}\n")
		_ = w.Close()
	}()
	br := bufio.NewReader(in)
	for _, want := range []string{"{\"a\":1}\n", "{\"b\":2}\n"} {
		line, err := br.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("read %q, %v; want %q", line, err, want)
		}
		if nonBlocking(t, stdin) {
			t.Fatal("stdin's description was made non-blocking")
		}
	}
	if line, err := br.ReadString('\n'); err != io.EOF {
		t.Fatalf("after the writer closed: %q, %v; want EOF", line, err)
	}
}

// A pipe given as serve's stdin is read through the poller, from a
// description of latch's own: the one stdin shares with the client is
// never made non-blocking.
func TestServeStdinPipeReadThroughThePoller(t *testing.T) {
	r, w := blockingPipe(t)
	in, done := pollableStdin(r)
	defer done()
	f, ok := in.(*os.File)
	if !ok || f == r || !nonBlocking(t, f) {
		t.Fatalf("a pipe was left to blocking reads (%T)", in)
	}
	readsLines(t, r, in, w)
	done()
	if nonBlocking(t, r) {
		t.Fatal("the pipe is non-blocking after serve")
	}
}

// A FIFO (a named pipe) is opened again the same way.
func TestServeStdinFIFOReadThroughThePoller(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	rfd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.SetNonblock(rfd, false); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(rfd), path)
	defer func() { _ = r.Close(); _ = w.Close() }()
	in, done := pollableStdin(r)
	defer done()
	if f, ok := in.(*os.File); !ok || f == r || !nonBlocking(t, f) {
		t.Fatalf("a FIFO was left to blocking reads (%T)", in)
	}
	readsLines(t, r, in, w)
}

// A socket given as serve's stdin is read through the poller with its
// flags as they are; a reader waiting on it returns when serve is done.
func TestServeStdinSocketReadThroughThePoller(t *testing.T) {
	mine, theirs := blockingSocketPair(t)
	in, done := pollableStdin(mine)
	if _, ok := in.(*socketReader); !ok {
		t.Fatalf("a socket was left to blocking reads (%T)", in)
	}
	readsLines(t, mine, in, theirs)
	done()

	mine, _ = blockingSocketPair(t)
	in, done = pollableStdin(mine)
	got := make(chan error, 1)
	go func() {
		_, err := in.Read(make([]byte, 16))
		got <- err
	}()
	done()
	if err := <-got; !errors.Is(err, os.ErrClosed) {
		t.Fatalf("a read waiting when serve was done: %v", err)
	}
	if nonBlocking(t, mine) {
		t.Fatal("the socket is non-blocking after serve")
	}
}

// A regular file, or a datagram socket, is read as it is.
func TestServeStdinOtherReadAsItIs(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	in, done := pollableStdin(file)
	done()
	if in != file {
		t.Fatal("a regular file was replaced")
	}
	p, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	dg := os.NewFile(uintptr(p[0]), "dgram")
	defer func() { _ = dg.Close(); _ = unix.Close(p[1]) }()
	in, done = pollableStdin(dg)
	done()
	if in != dg {
		t.Fatal("a datagram socket was replaced")
	}
}
