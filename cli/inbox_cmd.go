package cli

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/spf13/cobra"
	"io"
	"os"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"golang.org/x/term"

	"latch/permissions"
	"latch/session"
	"latch/themes"
	"latch/ui"
	"latch/ui/inbox"
	"latch/ui/notice"
	"latch/ui/sanitize"
)

// newInboxCmd is `latch inbox`.
func newInboxCmd(f *flags) *cobra.Command {
	return &cobra.Command{
		Use:   "inbox",
		Short: "the waiting calls, live, decided on this terminal",
		Long: "latch inbox shows every call waiting for a person on this machine, live, and decides them on this\n" +
			"terminal: y approve, n reject, Space marks, a marks the calls like this one (see docs/GATEWAY.md, The inbox).",
		Example: "  latch inbox\n  latch --config ~/work/latch.json inbox",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.command = "inbox"
			return nil
		},
	}
}

// runInbox is latch inbox: every call waiting for a person on this
// machine, live, decided on the terminal (ui/inbox). It runs only with a
// terminal on its input and output, as latch approve does.
func runInbox(ctx context.Context, s *settings, stdin io.Reader, stdout, stderr io.Writer) int {
	in, inOK := stdin.(*os.File)
	out, outOK := stdout.(*os.File)
	if !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		say(stderr, "latch inbox: refused: it needs a terminal on its input and output. A decision needs a person who sees the call: "+
			"run it yourself in a terminal (latch approvals lists the waiting calls)")
		return exitUsage
	}
	g := rulesGate(s)                                      // approvals_args.go
	src, find, closeSrc := inboxSource(s.stateDir, stderr) // approvals_index.go
	defer closeSrc()
	o := inbox.Options{
		Dir: s.stateDir, Source: src, Find: find, By: decider(), Notice: notice.Detect(s.getenv),
		Args: func(p session.ParkedCall, full bool) ([]string, int) {
			return ui.ArgLines(p.Arguments, argsView(g, p, full))
		},
		Line: func(p session.ParkedCall) string { return listedArgs(g, p, false) },
		Rule: func(p session.ParkedCall) (string, func() (string, error), error) { return inboxRule(s, p) },
	}
	var typed []byte
	o.Styles, typed = inboxStyles(s)
	keys, stop := newTypedInput(in, typed) // typedahead.go
	defer stop()
	if err := inbox.Run(ctx, o, keys, out); err != nil {
		say(stderr, "latch inbox: "+err.Error())
		return exitError
	}
	return exitOK
}

// inboxRule is the narrowest allow rule for calls like p, as the
// permission box's A step offers it first: shown as it will be written,
// and written by save into latch's config file.
func inboxRule(s *settings, p session.ParkedCall) (string, func() (string, error), error) {
	c := permissions.Call{Server: p.Server, Tool: strings.TrimPrefix(p.Tool, p.Server+permissions.NamespaceSep), Name: p.Tool,
		Args: p.Arguments, Digest: p.Digest}
	if b, _ := json.Marshal(p.Arguments); strings.Contains(string(b), "[redacted") {
		return "", nil, errors.New("its logged arguments hold a redacted credential: a rule made from them would not match the call")
	}
	specs := permissions.DeriveRules(c, s.getenv("HOME"))
	if len(specs) == 0 {
		return "", nil, errors.New("no argument rule fits this call's arguments")
	}
	text := permissions.FormatCompact(specs[0])
	if sanitize.Line(text) != text {
		return "", nil, errors.New("the rule would hold characters the screen cannot show as they are")
	}
	save := func() (string, error) {
		r, err := saveRule(s.cfg, s.getenv, specs[0]) // config_wiring.go
		if err != nil {
			return "", err
		}
		return "saved " + text + " as " + r.Origin, nil
	}
	return text, save, nil
}

// notifyOn tells the terminal on w that a call of tool waits: the bell,
// and the notification the terminal shows, if latch knows one (ui/notice).
func notifyOn(w io.Writer, getenv func(string) string) func(tool string) {
	kind := notice.Detect(getenv)
	th := &notice.Throttle{Every: 2 * time.Second} // a burst of parked calls rings once
	return func(tool string) {
		if th.Allow(time.Now()) {
			_, _ = io.WriteString(w, notice.Sequence(kind, tool))
		}
	}
}

// inboxStyles are the chat's: the theme of the settings, on the
// terminal's background when the theme needs it (asked before the screen
// owns the terminal; typed is what the person typed while latch waited
// for the answer, for the screen to read first). A theme that does not
// load gives the default, as in the chat.
func inboxStyles(s *settings) (st *themes.Styles, typed []byte) {
	dark := true
	if themes.NeedsBackground(s.theme) {
		dark, typed = queryBackground(os.Stdin, os.Stdout, bgQueryTimeout, s.getenv)
	}
	pal, _, _ := themes.FromEnv(s.theme, dark, s.getenv, themes.ConfigHome(s.getenv))
	lipgloss.SetColorProfile(themes.RenderProfile(pal, lipgloss.ColorProfile()))
	built := themes.Build(pal)
	return &built, typed
}
