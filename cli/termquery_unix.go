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

	"latch/themes"
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
// or stdout is not a terminal. typed is what the person typed meanwhile
// (see typedKeys), for the screen to read first. The DECRPM answer counts
// even when DA1's did not come in time; an answer that comes later still
// reaches the screen through the keys it reads (ui.TeaInput's onSync).
func querySync(in, out *os.File, timeout time.Duration) (ok bool, typed []byte) {
	got, _ := queryTerminal(in, out, "\x1b[?2026$p\x1b[c", timeout)
	typed = typedKeys(got)
	m := syncReply.FindSubmatch(got)
	return m != nil && (bytes.Equal(m[1], []byte("1")) || bytes.Equal(m[1], []byte("2"))), typed
}

// queryBackground asks the terminal for its background colour (OSC 11),
// then DA1, which ends the wait at once in a terminal that does not know
// OSC 11; it gives up after timeout. With no answer (no terminal, none in
// time) it reads $COLORFGBG, else says dark, as lipgloss does. typed is
// what the person typed meanwhile (see typedKeys), for the screen to
// read first.
func queryBackground(in, out *os.File, timeout time.Duration, getenv func(string) string) (dark bool, typed []byte) {
	got, answered := queryTerminal(in, out, "\x1b]11;?\x1b\\\x1b[c", timeout)
	typed = typedKeys(got)
	if answered {
		if dark, ok := themes.BackgroundAnswer(got); ok {
			return dark, typed
		}
	}
	return darkFGBG(getenv("COLORFGBG")), typed
}

// answers are the terminal's answers to the questions latch asks: an OSC
// answer (the background colour), ended by BEL or ST, and DECRPM's and
// DA1's.
var answers = regexp.MustCompile(`\x1b\](?:[^\x07\x1b]|\x1b[^\\])*(?:\x07|\x1b\\)|\x1b\[\?\d+;\d\$y|\x1b\[\?[\d;]*c`)

// typedKeys is what a query read from the terminal that is not the
// terminal's answer: keys the person typed while latch waited for it,
// which reach the terminal's input before (or among) the answer. Dropped,
// the first key typed as latch starts was lost.
func typedKeys(got []byte) []byte {
	if len(got) == 0 {
		return nil
	}
	return answers.ReplaceAll(got, nil)
}

// queryTerminal writes request to the terminal, in raw mode, and reads
// what it answers until a DA1 reply (which request must end with asking)
// or timeout. It reports false when stdin or stdout is not a terminal, or
// no DA1 reply came in time.
func queryTerminal(in, out *os.File, request string, timeout time.Duration) ([]byte, bool) {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) || !term.IsTerminal(int(out.Fd())) {
		return nil, false
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, false
	}
	defer func() { _ = term.Restore(fd, old) }()
	if _, err := out.WriteString(request); err != nil {
		return nil, false
	}
	var got []byte
	buf := make([]byte, 256)
	deadline := time.Now().Add(timeout)
	for !da1Reply.Match(got) {
		left := time.Until(deadline)
		if left <= 0 {
			return got, false
		}
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(left/time.Millisecond)+1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			return got, false
		}
		k, err := unix.Read(fd, buf)
		if err != nil || k <= 0 {
			return got, false
		}
		got = append(got, buf[:k]...)
	}
	return got, true
}
