package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"latch/session"
	"latch/ui/sanitize"
)

// decideArgs is what follows `latch approve` or `latch reject`.
type decideArgs struct {
	approve bool
	id      string // the call's invocation id (gw_…)
	reason  string // --reason, for reject
	full    bool   // --full: every value of the arguments whole (also of latch approvals)
}

// newApprovalsCmd is `latch approvals [--full]`.
func newApprovalsCmd(f *flags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "approvals [--full]",
		Short: "calls waiting for a person (of gateways and chats)",
		Example: `  latch approvals
  latch approvals --full`,
		Args: noArgs,
		RunE: func(*cobra.Command, []string) error {
			f.command = "approvals"
			return nil
		},
	}
	cmd.Flags().BoolVar(&f.decide.full, "full", false, "show every value of the calls' arguments whole")
	return cmd
}

// newDecideCmd is `latch approve ID` or `latch reject ID [--reason
// TEXT]` (verb), the flags before or after the id.
func newDecideCmd(f *flags, verb string) *cobra.Command {
	a := &f.decide
	cmd := &cobra.Command{
		Use:     verb + " ID",
		Short:   "approve a gateway's waiting call, as a person at a terminal",
		Example: "  latch approvals\n  latch approve gw_0123456789ab",
		RunE: func(_ *cobra.Command, args []string) error {
			f.command, a.approve = "decide", verb == "approve"
			switch {
			case len(args) == 0:
				return fmt.Errorf("latch %s: give the id of a waiting call (latch approvals lists them)", verb)
			case len(args) > 1:
				return fmt.Errorf("latch %s: unexpected argument %q", verb, sanitize.Line(args[1]))
			case !session.ValidID(args[0]):
				return fmt.Errorf("latch %s %s: not a call id (latch approvals lists them)", verb, sanitize.Line(args[0]))
			}
			a.id = args[0]
			a.reason = sanitize.Line(a.reason)
			if r := []rune(a.reason); len(r) > 500 {
				a.reason = string(r[:500])
			}
			return nil
		},
	}
	cmd.Long = cmd.Short + "\n\n" +
		"It shows the call and, once you type the end of its id, approves it; then it waits up to " + resultWait.String() + "\n" +
		"for what the call did.\n\n" +
		"Exit status: 0 approved, and the call ran (or still runs: its result goes to its client);\n" +
		"1 not done: nothing decided, decided before, refused by the gateway, or approved and then failed\n" +
		"(the tool returned an error, or its server could not be reached: the error's first line is said);\n" +
		"2 no terminal on stdin, or a usage error."
	if verb == "reject" {
		cmd.Short = "reject a gateway's waiting call, with a reason the client sees"
		cmd.Long = cmd.Short + "\n\n" +
			"It shows the call and, once you type the end of its id, rejects it: its client is told, with --reason.\n\n" +
			"Exit status: 0 rejected; 1 not done (nothing decided, or decided before); 2 no terminal on stdin, or a usage error."
		cmd.Example = "  latch reject gw_0123456789ab --reason \"not on main\""
		cmd.Flags().StringVar(&a.reason, "reason", "", "why, for the client (a line of `text`)")
	}
	cmd.Flags().BoolVar(&a.full, "full", false, "show every value of the call's arguments whole")
	return cmd
}

// listApprovals prints every call waiting for a person: of gateways (the
// client that made it, decided with latch approve/reject) and of chat
// sessions (decided in the chat, or with --resume ID --approve). width is
// the terminal's on stdout, 0 when stdout is not one: on a terminal the
// table is fitted to it (approvals_fit.go), elsewhere printed whole.
func listApprovals(s *settings, full bool, width int, now time.Time, stdout, stderr io.Writer) int {
	// A short command that holds every waiting call at once: the garbage
	// collector runs a quarter as often (a fifth less CPU at 10,000).
	debug.SetGCPercent(400)
	idx := openParked(s.stateDir, stderr)
	defer idx.close()
	all, err := idx.waiting()
	if err != nil {
		say(stderr, "latch approvals: "+err.Error())
		return exitError
	}
	// One write for the table, not one a cell.
	out := bufio.NewWriterSize(stdout, 1<<16)
	defer func() { _ = out.Flush() }() // what is left of the notices; an error shows as a short listing
	stdout = out
	g := rulesGate(s) // approvals_args.go
	var rows [][approvalCols]string
	running := map[string]bool{}
	for _, p := range all {
		if !p.Waiting() {
			continue
		}
		id, client, expires := p.CallID, p.Client, "in "+shortDuration(p.Expires.Sub(now))
		if p.Client == "" {
			id, client, expires = p.ApprovalID, "(chat)", "-"
		} else if !p.Expires.After(now) {
			expires = "expired"
		}
		sess := p.Session
		if _, ok := running[sess]; !ok {
			running[sess] = session.Running(s.stateDir, sess)
		}
		if p.Client != "" && !running[sess] {
			sess += " (gateway stopped)"
		}
		// The arguments come last: however long, they push no column.
		rows = append(rows, [approvalCols]string{sanitize.Line(id), sanitize.Line(client), sanitize.Line(p.Tool),
			shortDuration(now.Sub(p.Parked)), expires, sess, listedArgs(g, p, full)})
	}
	if len(rows) == 0 {
		fmt.Fprintln(stdout, "no call waits for approval")
		return exitOK
	}
	if err := writeApprovals(stdout, rows, width); err != nil {
		say(stderr, "latch approvals: "+err.Error())
		return exitError
	}
	listNotices(s, g, all, stdout)
	return exitOK
}

// shortDuration is d to the second, or to the minute past an hour.
func shortDuration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d >= time.Hour {
		return strings.TrimSuffix(d.Truncate(time.Minute).String(), "0s")
	}
	return d.Truncate(time.Second).String()
}

// decideApproval is latch approve/reject: refused unless a person at the
// terminal on stdin confirms it (see confirm.go); then the decision goes
// into the inbox of the gateway that parked the call, and is reported
// once the gateway has applied it, or refused with why.
func decideApproval(s *settings, a decideArgs, clock func() time.Time, stdin io.Reader, stdout, stderr io.Writer) int {
	verb := "reject"
	if a.approve {
		verb = "approve"
	}
	fail := func(msg string) int { say(stderr, verb+" "+sanitize.Line(a.id)+": "+msg); return exitError }
	tty, err := openDecisionTerminal(stdin)
	if err != nil {
		say(stderr, verb+" "+sanitize.Line(a.id)+": "+err.Error())
		return exitUsage
	}
	defer tty.close()
	idx := openParked(s.stateDir, stderr)
	defer idx.close()
	p, err := decidable(idx, a.id, clock())
	if err != nil {
		return fail(err.Error())
	}
	g := rulesGate(s) // approvals_args.go
	tty.notice = ruleNotices(s, g)(p)
	ok, err := tty.confirm(verb, a.reason, p, argsView(g, p, a.full), clock())
	switch {
	case err != nil:
		return fail(err.Error())
	case !ok:
		return fail("not " + decisionWord(a.approve) + ": what was typed is not the end of its id; nothing was decided")
	}
	// It may have been decided elsewhere, or have expired, while the
	// question waited.
	if p, err = decidable(idx, a.id, clock()); err != nil {
		return fail(err.Error())
	}
	d := session.Decision{InvocationID: p.CallID, Approve: a.approve, By: decider(), Reason: a.reason}
	if err := session.SendDecision(s.stateDir, p.Session, d); err != nil {
		return fail(err.Error())
	}
	// The gateway looks every session.InboxEvery; it logs the decision
	// that applied before it takes the file away.
	queued := session.AwaitTaken(s.stateDir, p.Session, p.CallID, time.Now().Add(session.TakeWait))
	after, err := findParked(idx, a.id)
	switch {
	case err != nil:
		return fail(err.Error())
	case after.Waiting() && queued:
		return fail(session.NotTaken(s.stateDir, p.Session))
	case after.Waiting():
		return fail("the gateway took the decision but did not apply it (see its log)")
	case after.By != d.By || after.Decision != decisionWord(a.approve):
		return fail("not applied: it was already " + outcome(after))
	case after.Refused != "":
		// Approved, and refused all the same: the client is told why.
		return fail("approved, but the gateway refused it: " + sanitize.Line(after.Refused))
	}
	done := fmt.Sprintf("%s %s: %s of %s, by %s", decisionWord(a.approve), sanitize.Line(p.CallID),
		sanitize.Line(p.Tool), sanitize.Line(p.Client), sanitize.Line(d.By))
	if a.approve {
		// What the call then did (approve_result.go): a call that failed
		// was not done.
		switch ran := awaitRan(idx, after, time.Now().Add(resultWait)); {
		case ran.Refused != "":
			return fail("approved, but the gateway refused it: " + sanitize.Line(ran.Refused))
		case !ran.Ran:
			done += fmt.Sprintf("; still running after %s: its result goes to its client", resultWait)
		case ran.Result.IsError || ran.Result.Error != "":
			say(stderr, done+", and then it failed: "+failedLine(s.stateDir, ran))
			return exitError
		}
	}
	fmt.Fprintln(stdout, done)
	return exitOK
}

// decidable finds the gateway's call id, and says why if it cannot be
// decided now.
func decidable(idx *parkedIndex, id string, now time.Time) (session.ParkedCall, error) {
	dir := idx.dir
	p, err := findParked(idx, id)
	switch {
	case err != nil:
		return p, err
	case !p.Waiting():
		return p, errors.New("already " + outcome(p))
	case !p.Expires.After(now):
		return p, errors.New("it expired at " + p.Expires.Local().Format(time.DateTime) + ", undecided")
	case !session.Running(dir, p.Session):
		return p, errors.New("the gateway that parked it (session " + p.Session + ") is not running, so it cannot be decided now. " +
			"Its client starts it again (latch serve --stdio runs when the client does; or run latch serve on the same config, " +
			"without --fresh): it takes up the calls left waiting, and then latch approve decides this one")
	}
	return p, nil
}

// findParked finds a gateway's parked call by its invocation id.
func findParked(idx *parkedIndex, id string) (session.ParkedCall, error) {
	all, err := idx.find(id)
	if err != nil {
		return session.ParkedCall{}, err
	}
	chat := ""
	for _, p := range all {
		switch {
		case p.Client != "" && p.CallID == id:
			return p, nil
		case p.Client == "" && p.ApprovalID == id && p.Waiting():
			chat = p.Session
		}
	}
	if chat != "" {
		return session.ParkedCall{}, fmt.Errorf("a chat's parked call: decide it in that chat (/approve %s), or with latch --resume %s --approve %s", id, chat, id)
	}
	return session.ParkedCall{}, errors.New("no gateway's call has this id (latch approvals lists the waiting ones)")
}

// outcome says what became of a decided call, and who decided.
func outcome(p session.ParkedCall) string {
	return sanitize.Line(p.Outcome())
}

// decisionWord is how the log names the decision.
func decisionWord(approve bool) string {
	if approve {
		return "approved"
	}
	return "rejected"
}

// decider names who decides: the OS user, and the terminal they decide
// from ("alice on /dev/pts/3").
func decider() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "?"
	}
	for _, fd := range []string{"0", "1", "2"} {
		if t, err := os.Readlink("/proc/self/fd/" + fd); err == nil && strings.HasPrefix(t, "/dev/") && t != "/dev/null" {
			return name + " on " + t
		}
	}
	return name + " (no terminal)"
}
