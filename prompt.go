package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// runPrompt runs one turn without the screen (-p): the answer on stdout, a
// line per tool call on stderr, or every event as NDJSON with --json. ask
// means deny (no one to ask); a call parked in approve mode ends the run
// with status 3 and its approval id. With --resume ID --approve/--reject,
// the parked run is finished instead.
func runPrompt(s *settings, f flags, stdin io.Reader, stdout, stderr io.Writer) int {
	prompt := f.prompt
	if prompt == "-" {
		b, err := io.ReadAll(stdin)
		if err != nil {
			fmt.Fprintln(stderr, "latch: reading the prompt from stdin:", err)
			return exitUsage
		}
		prompt = strings.TrimRight(string(b), "\n")
	}
	deciding := f.approve != "" || f.reject != ""
	if strings.TrimSpace(prompt) == "" && !deciding {
		fmt.Fprintln(stderr, "latch: -p needs a prompt (or --resume ID --approve APPROVAL_ID -p \"\")")
		return exitUsage
	}
	if s.model == "" && f.resume == "" && !f.cont {
		fmt.Fprintln(stderr, "latch: -p needs a model: --model NAME, $LATCH_MODEL or \"model\" in the config")
		return exitUsage
	}
	sess, _, err := openSession(s, f, true)
	if err != nil {
		fmt.Fprintln(stderr, "latch:", err)
		return exitUsage
	}
	defer sess.Close()
	sub := sess.Subscribe()
	sess.Start()
	sess.StartServers()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	sess.WaitServers(wctx)
	cancel()

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
		if why := sess.Blocked(); why != "" {
			fmt.Fprintln(stderr, "latch:", sanitize.Line(why))
			return exitParked
		}
		if strings.TrimSpace(prompt) != "" {
			fmt.Fprintln(stderr, "latch: the prompt is ignored: the resumed turn goes on first")
		}
	default:
		if err := sess.Send(prompt); err != nil {
			fmt.Fprintln(stderr, "latch:", sanitize.Line(err.Error()))
			return exitError
		}
	}
	return printTurn(ctx, sess, sub, f.json, stdout, stderr)
}

// printTurn writes the turn's events until it ends (or parks) and returns
// the exit status.
func printTurn(ctx context.Context, sess *session.Session, sub *session.Sub, asJSON bool, stdout, stderr io.Writer) int {
	enc := json.NewEncoder(stdout)
	wroteText := false
	status := exitOK
	for {
		evs, ok := sub.Next(ctx)
		if !ok {
			sess.Cancel()
			return exitError
		}
		for _, e := range evs {
			if asJSON {
				if _, isMsg := e.(*session.MessageEvent); !isMsg {
					_ = enc.Encode(e)
				}
			}
			switch e := e.(type) {
			case *session.AssistantDelta:
				if !asJSON {
					fmt.Fprint(stdout, sanitize.Text(e.Text))
					wroteText = true
				}
			case *session.ToolCallEvent:
				if !asJSON {
					args, _ := json.Marshal(e.Arguments)
					fmt.Fprintf(stderr, "tool %s %s\n", sanitize.Line(e.Tool), sanitize.Line(string(args)))
				}
			case *session.PermissionEvent:
				if !asJSON && e.Decision == "denied" {
					fmt.Fprintf(stderr, "tool %s denied by %s: %s\n", sanitize.Line(e.Tool), e.By, sanitize.Line(e.Reason))
				}
			case *session.ToolResultEvent:
				if !asJSON {
					switch {
					case e.Error != "":
						fmt.Fprintf(stderr, "tool %s failed: %s\n", sanitize.Line(e.Tool), sanitize.Line(e.Error))
					default:
						fmt.Fprintf(stderr, "tool %s done in %dms (%d bytes)\n", sanitize.Line(e.Tool), e.DurationMS, e.Size)
					}
				}
			case *session.ApprovalParkedEvent:
				// The approval is on disk (synced) before this event.
				fmt.Fprintf(stderr, "latch: %s waits for approval %s: latch --resume %s --approve %s -p \"\" (or --reject %s)\n",
					sanitize.Line(e.Tool), e.ApprovalID, sess.ID(), e.ApprovalID, e.ApprovalID)
				if !asJSON {
					fmt.Fprintln(stdout, e.ApprovalID)
				}
				return exitParked
			case *session.Error:
				fmt.Fprintln(stderr, "latch:", sanitize.Line(e.Message))
				status = exitError
			case *session.ServerStatusEvent:
				if !asJSON && (e.State == "failed" || e.State == "disconnected" || e.State == "auth expired") {
					fmt.Fprintf(stderr, "latch: MCP server %s %s\n", sanitize.Line(e.Server), sanitize.Line(e.Summary))
				}
			case *session.TurnDone:
				if !asJSON && wroteText {
					fmt.Fprintln(stdout)
				}
				if e.Reason == session.ReasonStop || e.Reason == session.ReasonLength {
					return status
				}
				return exitError
			}
		}
	}
}
