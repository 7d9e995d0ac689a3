// Package inbox is `latch inbox`: a full-screen, live list of every call
// that waits for a person on this machine (parked by a gateway's client,
// or by a chat's model), decided there one at a time or together.
//
// The inbox never writes a session log: a decision goes into the
// gateway's inbox folder (session.SendDecision), as latch approve's does,
// and the gateway applies it and logs who decided. The first decision on
// a call wins; a later one, from this inbox, another or latch approve, is
// refused and the person is told on the screen.
package inbox

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/themes"
	"latch/ui/notice"
)

// Options is what the inbox needs from latch.
type Options struct {
	// Dir is the state folder: the session logs and the gateways' inbox
	// folders.
	Dir string
	// By names the person deciding, as the gateway logs it ("alice on
	// /dev/pts/3").
	By string
	// Source gives the waiting calls; Watch(Dir) when nil.
	Source Source
	// Find gives the calls of a session logged with the invocation ids,
	// up to date, to say what became of the decisions sent; when nil, each
	// session's log is read whole (session.ParkedCallsOf).
	Find func(sessionID string, callIDs []string) ([]session.ParkedCall, error)
	// Args lays out a call's arguments one key a line, sanitized, long
	// values elided in their middle with the count left out unless full;
	// it also counts what it elided. Line lays them out on one line.
	Args func(p session.ParkedCall, full bool) (lines []string, elided int)
	Line func(p session.ParkedCall) string
	// Notice is how the terminal is told that a new call waits; Ring
	// writes it to the terminal (nil: nothing is rung).
	Notice notice.Kind
	Ring   func(seq string)
	// Rule, when set, gives the narrowest allow rule for calls like p
	// (its tool with these arguments), as it will be written, and save,
	// which writes it into latch's config and says where.
	Rule func(p session.ParkedCall) (shown string, save func() (string, error), err error)
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Every is how often the waiting calls are read; 250 ms when 0.
	Every time.Duration
	// Styles draw the screen; themes.Default() when zero.
	Styles *themes.Styles
}

// Run shows the inbox on the terminal until the person quits or ctx
// ends.
func Run(ctx context.Context, o Options, in io.Reader, out io.Writer) error {
	if o.Ring == nil {
		o.Ring = func(seq string) { _, _ = io.WriteString(out, seq) }
	}
	if in == nil {
		in = os.Stdin
	}
	p := tea.NewProgram(New(o), tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(in), tea.WithOutput(out))
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}
