package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// runPrompt runs one turn without the screen (-p): the answer on stdout, a
// line per tool call on stderr, or every event as NDJSON with --json. ask
// means deny (no one to ask); a call parked in approve mode ends the run
// with status 3 and its approval id. With --resume ID --approve/--reject,
// the parked run is finished instead. A resumed session whose last turn is
// unfinished (after a crash: calls decided but not run, results the model
// has not seen) goes on with that turn first (-p "" is enough); one that
// still waits for a person (an approval, a call in doubt) ends with status
// 3 and says what it waits for.
//
// ctx is done on Ctrl+C (any quit signal, see quitRequested): that cancels
// the run, and latch exits once the session is closed.
func runPrompt(ctx context.Context, s *settings, f flags, stdin io.Reader, stdout, stderr io.Writer) int {
	prompt := f.prompt
	if prompt == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			say(stderr, "reading the prompt from stdin: "+err.Error())
			return exitUsage
		}
		prompt = strings.TrimRight(string(b), "\n")
	}
	deciding := f.approve != "" || f.reject != ""
	resuming := f.resume != "" || f.cont
	if strings.TrimSpace(prompt) == "" && !deciding && !resuming {
		fmt.Fprintln(stderr, "latch: -p needs a prompt (or --resume ID --approve APPROVAL_ID -p \"\")")
		return exitUsage
	}
	if s.model == "" && f.resume == "" && f.fork == "" && !f.cont { // those take the logged model
		fmt.Fprintln(stderr, "latch: -p needs a model: --model NAME, $LATCH_MODEL or \"model\" in the config")
		return exitUsage
	}
	if err := ollamaFirst(ctx, s, f); err != nil { // prompt_ollama.go
		say(stderr, err.Error())
		return exitError
	}
	sess, _, err := openSession(s, f, true)
	if errors.Is(err, session.ErrSessionBusy) {
		say(stderr, err.Error())
		return exitError
	}
	if err != nil {
		say(stderr, err.Error())
		return exitUsage
	}
	defer sess.Close()
	sub := sess.Subscribe()
	sess.Start()
	sess.StartServers()
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	sess.WaitServers(wctx)
	cancel()
	if ctx.Err() != nil {
		return exitError // interrupted while the servers connected
	}
	sess.SettleRetries() // a retry whose server is not up waits for a person

	if code := beginTurn(sess, f, prompt, stdout, stderr); code >= 0 {
		return code
	}
	return printTurn(ctx, sess, sub, f.json, stdout, stderr)
}

// beginTurn starts what -p runs: the decision on a parked call and the
// turn it resumes, a resumed turn cut short, or the prompt. It returns an
// exit status when there is nothing to print (-1 when the turn runs).
func beginTurn(sess *session.Session, f flags, prompt string, stdout, stderr io.Writer) int {
	deciding := f.approve != "" || f.reject != ""
	resuming := f.resume != "" || f.cont
	switch {
	case deciding:
		id, approve := f.approve, true
		if id == "" {
			id, approve = f.reject, false
		}
		if err := sess.Decide(id, approve); err != nil {
			fmt.Fprintln(stderr, "latch:", sanitize.Line(err.Error()))
			return exitError
		}
		if blocked(sess, f.json, stdout, stderr) {
			return exitParked
		}
		if strings.TrimSpace(prompt) != "" {
			fmt.Fprintln(stderr, "latch: the prompt is ignored: the resumed turn goes on first")
		}
	case resuming:
		// The last turn, cut short by a crash, goes on first: decisions
		// made before it stand and are not asked again.
		if blocked(sess, f.json, stdout, stderr) {
			return exitParked
		}
		if sess.Continue() {
			if strings.TrimSpace(prompt) != "" {
				fmt.Fprintln(stderr, "latch: the prompt is ignored: the resumed turn goes on first")
			}
			return -1
		}
		if strings.TrimSpace(prompt) == "" {
			fmt.Fprintf(stderr, "latch: session %s has no unfinished turn: -p needs a prompt\n", sess.ID())
			return exitUsage
		}
		if err := sess.Send(prompt); err != nil {
			fmt.Fprintln(stderr, "latch:", sanitize.Line(err.Error()))
			return exitError
		}
	default:
		if err := sess.Send(prompt); err != nil {
			fmt.Fprintln(stderr, "latch:", sanitize.Line(err.Error()))
			return exitError
		}
	}
	return -1
}

// blocked reports whether a resumed turn waits for a person, and if so says
// for what on stderr: a pending approval (its id also on stdout without
// --json, as when a run parks) or a call in doubt, settled in the chat.
func blocked(sess *session.Session, asJSON bool, stdout, stderr io.Writer) bool {
	why := sess.Blocked()
	if why == "" {
		return false
	}
	fmt.Fprintln(stderr, "latch:", sanitize.Line(why))
	if len(sess.InDoubtCalls()) > 0 {
		fmt.Fprintf(stderr, "latch: /retry and /dismiss are chat commands: latch --resume %s\n", sess.ID())
		return true
	}
	for _, ap := range sess.Approvals() {
		id := sanitize.Line(ap.ID) // from the log, which a person may have edited
		fmt.Fprintf(stderr, "latch: %s waits for approval %s: latch --resume %s --approve %s -p \"\" (or --reject %s)\n",
			sanitize.Line(ap.Name), id, sess.ID(), id, id)
		if !asJSON {
			fmt.Fprintln(stdout, id)
		}
	}
	return true
}

// printTurn writes the turn's events until it ends (or parks) and returns
// the exit status.
func printTurn(ctx context.Context, sess *session.Session, sub *session.Sub, asJSON bool, stdout, stderr io.Writer) int {
	p := newPrinter(sess.ID(), asJSON, stdout, stderr)
	for {
		evs, ok := sub.Next(ctx)
		if !ok {
			sess.Cancel()
			return exitError
		}
		for _, e := range evs {
			if done, status := p.event(e); done {
				return status
			}
		}
	}
}

// printer writes a -p run's events: the answer on stdout, a line per tool
// call on stderr, or every event as NDJSON with --json.
type printer struct {
	id             string // the session's, for the resume command
	asJSON         bool
	stdout, stderr io.Writer
	wroteText      bool
	status         int
	calls          map[string]string // call id → "tool NAME ARGS", until its result
	denied         map[string]string // call id → why it was denied
}

func newPrinter(id string, asJSON bool, stdout, stderr io.Writer) *printer {
	return &printer{id: id, asJSON: asJSON, stdout: stdout, stderr: stderr, status: exitOK,
		calls: map[string]string{}, denied: map[string]string{}}
}

// noteOf writes the one-line notes of an event that is one (a notice, a
// retry, an attachment, a compaction's end), reporting whether it was.
func (p *printer) noteOf(e session.Event) bool {
	switch e := e.(type) {
	case *session.Notice:
		p.note(e.Text)
	case *session.CallRetriedEvent:
		p.note(e.Text())
	case *session.AttachmentEvent:
		p.note(attachmentLine(e))
	case *session.CompactionEvent:
		if e.Step != session.CompactStarted { // its "esc cancels" is the chat's
			p.note(e.Line())
		}
	default:
		return false
	}
	return true
}

// event writes one event. done says the turn ended (or parked), with the
// exit status.
func (p *printer) event(e session.Event) (done bool, status int) {
	if p.asJSON {
		writeJSON(p.stdout, e)
	}
	p.elicitLine(e)
	// Everything printed below comes from a display-safe copy.
	shown := session.Display(e)
	p.sampling(shown)
	if p.noteOf(shown) {
		return false, 0
	}
	switch e := shown.(type) {
	case *session.AssistantDelta:
		if !p.asJSON {
			fmt.Fprint(p.stdout, e.Text)
			p.wroteText = true
		}
	case *session.ToolCallEvent:
		// One line per call, written when it ends.
		args, _ := json.Marshal(e.Arguments)
		p.calls[e.CallID] = fmt.Sprintf("tool %s %s", sanitize.Line(e.Tool), sanitize.Line(string(args)))
	case *session.PermissionEvent:
		if e.Decision == "denied" {
			p.denied[e.CallID] = fmt.Sprintf("denied by %s: %s", sanitize.Line(e.By), sanitize.Line(e.Reason))
		}
	case *session.ToolResultEvent:
		if strings.HasPrefix(e.Error, session.NotRunLogBroken) {
			p.status = exitError // a call was refused: the answer lacks it
		}
		if !p.asJSON {
			fmt.Fprintln(p.stderr, p.resultLine(e))
		}
		delete(p.calls, e.CallID)
		delete(p.denied, e.CallID)
	case *session.ApprovalParkedEvent:
		// The approval is on disk (synced) before this event.
		id := sanitize.Line(e.ApprovalID)
		fmt.Fprintf(p.stderr, "latch: %s waits for approval %s: latch --resume %s --approve %s -p \"\" (or --reject %s)\n",
			sanitize.Line(e.Tool), id, p.id, id, id)
		if !p.asJSON {
			fmt.Fprintln(p.stdout, id)
		}
		return true, exitParked
	case *session.Error:
		fmt.Fprintln(p.stderr, "latch:", sanitize.Line(e.Message))
		p.status = exitError
	case *session.ServerStatusEvent:
		switch {
		case p.asJSON:
		case e.State == "failed" || e.State == "disconnected":
			// As the chat shows it: with the server's last stderr lines.
			fmt.Fprintln(p.stderr, "latch: "+e.Failure())
		case e.State == "auth expired":
			fmt.Fprintf(p.stderr, "latch: MCP server %s %s\n", sanitize.Line(e.Server), sanitize.Line(e.Summary))
		}
	case *session.TurnDone:
		if !p.asJSON && p.wroteText {
			fmt.Fprintln(p.stdout)
		}
		if e.Reason == session.ReasonStop || e.Reason == session.ReasonLength {
			return true, p.status
		}
		return true, exitError
	}
	return false, 0
}

// resultLine is a finished call's stderr line: what was called and how it
// ended.
func (p *printer) resultLine(e *session.ToolResultEvent) string {
	line, ok := p.calls[e.CallID]
	if !ok {
		line = "tool " + sanitize.Line(e.Tool)
	}
	switch {
	case p.denied[e.CallID] != "":
		return line + ": " + p.denied[e.CallID]
	case e.Error != "":
		return line + ": failed: " + sanitize.Line(e.Error)
	case e.IsError:
		return line + fmt.Sprintf(": the tool reported an error in %dms (%d bytes)", e.DurationMS, e.Size)
	}
	return line + fmt.Sprintf(": done in %dms (%d bytes)", e.DurationMS, e.Size)
}

// writeJSON writes an event as one line of --json output, in its wire form
// (session.Marshal: no raw control character), leaving out the
// conversation entries the log keeps for resuming.
func writeJSON(w io.Writer, e session.Event) {
	if _, isMsg := e.(*session.MessageEvent); isMsg {
		return
	}
	if b, err := session.Marshal(e); err == nil {
		_, _ = w.Write(append(b, '\n'))
	}
}

// note writes a line for the person on stderr (not with --json).
func (p *printer) note(text string) {
	if !p.asJSON {
		fmt.Fprintln(p.stderr, "latch:", sanitize.Line(text))
	}
}

// attachmentLine is -p's stderr line for a resource attached to the
// prompt (@SERVER:URI).
func attachmentLine(e *session.AttachmentEvent) string {
	name := sanitize.Line(e.Server) + ":" + sanitize.Line(e.URI)
	switch {
	case e.Kind == session.AttachDescribed:
		return fmt.Sprintf("not attached: %s (%s, %d bytes): %s", name, sanitize.Line(e.MIMEType), e.Size, sanitize.Line(e.Note))
	case e.Cut:
		return fmt.Sprintf("attached %s (%s, cut to %d of %d bytes)", name, sanitize.Line(e.Kind), e.Sent, e.Size)
	}
	return fmt.Sprintf("attached %s (%s, %d bytes)", name, sanitize.Line(e.Kind), e.Size)
}
