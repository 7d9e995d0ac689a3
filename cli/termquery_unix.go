//go:build unix

package cli

import (
	"bytes"
	"errors"
	"os"
	"regexp"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// ttyName is the process's terminal.
const ttyName = "/dev/tty"

// syncReply is a terminal's DECRPM answer about mode 2026; da1Reply ends
// the answers (every terminal answers DA1).
var (
	syncReply = regexp.MustCompile(`\x1b\[\?2026;(\d)\$y`)
	da1Reply  = regexp.MustCompile(`\x1b\[\?[\d;]*c`)
)

// querySync asks the terminal whether it knows synchronized output (DEC
// mode 2026), before Bubble Tea owns the terminal: DECRQM for the mode,
// then DA1, which every terminal answers, so one that does not know
// DECRQM ends the wait at once. It gives up after timeout, or when stdin
// or stdout is not a terminal.
func querySync(in, out *os.File, timeout time.Duration) bool {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) || !term.IsTerminal(int(out.Fd())) {
		return false
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return false
	}
	defer func() { _ = term.Restore(fd, old) }()
	if _, err := out.WriteString("\x1b[?2026$p\x1b[c"); err != nil {
		return false
	}
	var got []byte
	buf := make([]byte, 256)
	deadline := time.Now().Add(timeout)
	for !da1Reply.Match(got) {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return false
		}
		k, err := unix.Read(fd, buf)
		if err != nil || k <= 0 {
			return false
		}
		got = append(got, buf[:k]...)
	}
	m := syncReply.FindSubmatch(got)
	return m != nil && (bytes.Equal(m[1], []byte("1")) || bytes.Equal(m[1], []byte("2")))
}
