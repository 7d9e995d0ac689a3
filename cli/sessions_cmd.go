package cli

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"latch/session"
	"latch/ui/sanitize"
)

// sessionsArgs is what follows `latch sessions`.
type sessionsArgs struct {
	action   string // "" (list), "rm" or "prune"
	ids      []string
	olderAge time.Duration // prune: --older-than
	older    string        // as given
	dryRun   bool
}

// newSessionsCmd is `latch sessions [rm ID… | prune --older-than AGE
// [--dry-run]]`.
func newSessionsCmd(f *flags) *cobra.Command {
	a := &f.sessions
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "saved sessions: list them, delete some (rm), or those idle too long (prune)",
		Example: `  latch sessions
  latch sessions rm 20261101-100000-a1b2c3
  latch sessions prune --older-than 30d --dry-run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.command = "sessions"
			if len(args) > 0 {
				return fmt.Errorf("latch sessions %s: unknown; use latch sessions, latch sessions rm ID or latch sessions prune --older-than AGE", sanitize.Line(args[0]))
			}
			return nil
		},
	}
	rm := &cobra.Command{
		Use:   "rm ID…",
		Short: "delete saved sessions",
		RunE: func(cmd *cobra.Command, args []string) error {
			f.command, a.action = "sessions", "rm"
			if len(args) == 0 {
				return errors.New("latch sessions rm: give the id of a session (latch sessions lists them)")
			}
			for _, id := range args {
				if !session.ValidID(id) {
					return fmt.Errorf("latch sessions rm %s: not a session id (letters, digits, - and _ only; latch sessions lists them)", sanitize.Line(id))
				}
			}
			a.ids = args
			return nil
		},
	}
	prune := &cobra.Command{
		Use:   "prune --older-than AGE [--dry-run]",
		Short: "delete the sessions idle longer than AGE",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.command, a.action = "sessions", "prune"
			if a.older == "" {
				return errors.New("latch sessions prune: --older-than AGE is needed (e.g. --older-than 30d)")
			}
			d, err := parseAge(a.older)
			if err != nil {
				return fmt.Errorf("latch sessions prune --older-than: %v", err)
			}
			a.olderAge = d
			return nil
		},
	}
	prune.Flags().StringVar(&a.older, "older-than", "", "delete sessions whose last activity is older than this `age` (30d, 12h, 2w)")
	prune.Flags().BoolVar(&a.dryRun, "dry-run", false, "say what would be deleted, delete nothing")
	cmd.AddCommand(rm, prune)
	return cmd
}

// parseAge reads an age: a whole number of days (30d) or weeks (2w), or a
// Go duration (12h, 90m). It must be above 0.
func parseAge(s string) (time.Duration, error) {
	var d time.Duration
	var err error
	if n, unit := strings.TrimRight(s, "dw"), strings.TrimLeft(s, "0123456789"); unit == "d" || unit == "w" {
		days, perr := strconv.Atoi(n)
		err = perr
		d = time.Duration(days) * 24 * time.Hour
		if unit == "w" {
			d *= 7
		}
	} else {
		d, err = time.ParseDuration(s)
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not an age (e.g. 30d, 2w, 12h)", sanitize.Line(s))
	}
	return d, nil
}

// runSessions runs `latch sessions`: list, rm or prune.
func runSessions(s *settings, a sessionsArgs, now time.Time, stdout, stderr io.Writer) int {
	switch a.action {
	case "rm":
		return removeSessions(s.stateDir, a.ids, stdout, stderr)
	case "prune":
		return pruneSessions(s.stateDir, a, now, stdout, stderr)
	}
	return listSessions(s, now, stdout, stderr)
}

// removeSessions is `latch sessions rm ID…`.
func removeSessions(dir string, ids []string, stdout, stderr io.Writer) int {
	code := exitOK
	for _, id := range ids {
		switch err := session.Remove(dir, id); {
		case errors.Is(err, session.ErrNoSession):
			say(stderr, fmt.Sprintf("latch sessions rm: no saved session %s (latch sessions lists them)", id))
			code = exitError
		case err != nil:
			say(stderr, "latch sessions rm: "+err.Error())
			code = exitError
		default:
			fmt.Fprintf(stdout, "removed session %s\n", id)
		}
	}
	return code
}

// pruneSessions is `latch sessions prune --older-than AGE [--dry-run]`.
func pruneSessions(dir string, a sessionsArgs, now time.Time, stdout, stderr io.Writer) int {
	r, err := session.Prune(dir, now.Add(-a.olderAge), a.dryRun)
	if err != nil {
		say(stderr, "latch sessions prune: "+err.Error())
		return exitError
	}
	verb := "removed"
	if a.dryRun {
		verb = "would remove"
	}
	for _, id := range r.Removed {
		fmt.Fprintf(stdout, "%s %s\n", verb, id)
	}
	for _, id := range r.Busy {
		fmt.Fprintf(stdout, "kept %s: it is open in another latch\n", id)
	}
	fmt.Fprintf(stdout, "%s %d session(s) idle for more than %s; kept %d\n", verb, len(r.Removed), a.older, r.Kept)
	return exitOK
}

// listSessions prints the saved sessions that hold a message, and the
// runs of latch serve, newest first: `latch sessions`.
func listSessions(s *settings, now time.Time, stdout, stderr io.Writer) int {
	all, err := session.List(s.stateDir)
	if err != nil {
		say(stderr, err.Error())
		return exitError
	}
	var list []session.Summary
	for _, x := range all {
		if x.Messages > 0 || len(x.Pending) > 0 || x.Gateway {
			list = append(list, x)
		}
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no saved sessions in %s\n", s.stateDir)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMODEL\tPENDING\tFIRST PROMPT")
	for _, x := range list {
		model, pending, prompt := sanitize.Line(x.Model), "-", sessionPrompt(x)
		if len(x.Pending) > 0 {
			pending = sanitize.Line(strings.Join(x.Pending, ",")) // ids from a log a person may have edited
		}
		if x.Parent != "" {
			prompt = "(forked from " + x.Parent + ") " + prompt
		}
		if x.Gateway {
			model, pending, prompt = "gateway", "-", gatewayLine(x, now)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", x.ID, x.Started.Local().Format("2006-01-02 15:04"), model, pending, prompt)
	}
	if err := tw.Flush(); err != nil {
		say(stderr, "latch sessions: "+err.Error())
		return exitError
	}
	return exitOK
}

// sessionPrompt is a chat's first prompt, on one line, cut short.
func sessionPrompt(x session.Summary) string {
	prompt := sanitize.Line(x.FirstPrompt)
	if len([]rune(prompt)) > 50 {
		prompt = string([]rune(prompt)[:50]) + "…"
	}
	if prompt == "" {
		prompt = "(cleared)"
	}
	return prompt
}

// gatewayLine describes a run of latch serve: its clients' calls, and
// how many still wait for a person (past their expiry they wait no more).
func gatewayLine(x session.Summary, now time.Time) string {
	waiting := 0
	for _, exp := range x.Waiting {
		if exp.After(now) {
			waiting++
		}
	}
	line := fmt.Sprintf("latch serve: %d call(s), %d waiting", x.Calls, waiting)
	if waiting > 0 {
		line += " (latch approvals)"
	}
	return line
}
