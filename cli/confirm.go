package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"latch/session"
	"latch/ui"
	"latch/ui/sanitize"
)

// A decision on a gateway's parked call needs a person. latch approve and
// latch reject show the call on the terminal and read, from that terminal,
// the last characters of its id, typed after the question appeared. An
// agent that runs commands through a shell tool has no terminal there, so
// running `latch approve ID` cannot decide its own call. What this cannot
// stop: a process of the same user can give itself a terminal (script(1),
// a pty library) and type into it, or write the decision file itself; an
// agent is bound by the gate only when it cannot reach latch's state and
// config folders (docs/SECURITY.md).

// confirmChars is how many of the id's last characters confirm a decision.
const confirmChars = 4

// errNotTerminal: the command's input is not a terminal, so no person can
// be asked there.
var errNotTerminal = errors.New("refused: its input is not a terminal. A decision needs a person who sees the call: " +
	"run it yourself in a terminal (an agent's shell cannot decide)")

// decisionTerminal is where a person is asked to confirm a decision: the
// terminal on stdin, read for the answer, and the same terminal written
// to (the console), so that the call shows even when stdout and stderr
// are redirected.
type decisionTerminal struct {
	in  *os.File
	out *os.File
	// notice, when set, is shown above the call's arguments: what the
	// rules of the moment will do to an approval (ruleNotices).
	notice string
}

// openDecisionTerminal checks that stdin is a terminal and opens the
// console to show the call on.
func openDecisionTerminal(stdin io.Reader) (*decisionTerminal, error) {
	in, ok := stdin.(*os.File)
	if !ok || !term.IsTerminal(int(in.Fd())) {
		return nil, errNotTerminal
	}
	out, err := openConsole()
	if err != nil {
		return nil, fmt.Errorf("refused: no terminal to show the call on: %v", err)
	}
	return &decisionTerminal{in: in, out: out}, nil
}

// close closes the console (stdin stays the process's).
func (t *decisionTerminal) close() { _ = t.out.Close() } // written to only: nothing is lost

// confirm shows the call (its arguments as view says) and asks for the last characters of its id. Keys
// typed before the question appeared are thrown away first: an answer
// counts only if it was typed by someone who could read the question. It
// reports whether the answer matches.
func (t *decisionTerminal) confirm(verb, reason string, p session.ParkedCall, view ui.ArgView, now time.Time) (bool, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "latch %s: this call waits for a person's decision\n", verb)
	fmt.Fprintf(&b, "  id         %s\n", sanitize.Line(p.CallID))
	fmt.Fprintf(&b, "  client     %s\n", sanitize.Line(p.Client))
	fmt.Fprintf(&b, "  tool       %s\n", sanitize.Line(p.Tool))
	writeNotice(&b, t.notice)
	writeArgsBlock(&b, p, view) // approvals_args.go
	fmt.Fprintf(&b, "  parked     %s ago (session %s); expires in %s\n", shortDuration(now.Sub(p.Parked)),
		sanitize.Line(p.Session), shortDuration(p.Expires.Sub(now)))
	if reason != "" {
		fmt.Fprintf(&b, "  reason     %s\n", reason)
	}
	if _, err := io.WriteString(t.out, b.String()); err != nil {
		return false, err
	}
	if err := flushInput(t.in); err != nil {
		return false, fmt.Errorf("cannot clear what was typed before the question: %v", err)
	}
	if _, err := fmt.Fprintf(t.out, "To %s it, type the last %d characters of its id, then Enter (anything else decides nothing): ",
		verb, confirmChars); err != nil {
		return false, err
	}
	line, err := bufio.NewReader(io.LimitReader(t.in, 256)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	if errors.Is(err, io.EOF) {
		fmt.Fprintln(t.out)
	}
	id := p.CallID
	return len(id) > confirmChars && strings.EqualFold(strings.TrimSpace(line), id[len(id)-confirmChars:]), nil
}
