package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"latch/session/eventlog"
)

// A gateway's parked calls are decided from any terminal (latch approve,
// latch reject) without a second writer of its log: the deciding process
// drops a Decision into the session's inbox folder, and the gateway, the
// single writer of its log, applies it (GatewayDecide logs who decided)
// and removes it.

// Decision is a person's decision on a gateway's parked call, on its way
// from the deciding process to the gateway.
type Decision struct {
	InvocationID string `json:"invocation_id"`
	Approve      bool   `json:"approve"`
	By           string `json:"by"` // who decided: "alice on /dev/pts/3"
	Reason       string `json:"reason,omitempty"`
}

// ErrDecisionQueued: a decision on the call already waits in the inbox.
var ErrDecisionQueued = errors.New("another decision on this call is already on its way to the gateway")

// inboxDir is the folder of decisions for the session's gateway.
func inboxDir(logDir, sessionID string) string {
	return filepath.Join(logDir, "inbox", sessionID)
}

// decisionPath is where the decision on a call waits.
func decisionPath(logDir, sessionID, invocationID string) string {
	return filepath.Join(inboxDir(logDir, sessionID), invocationID+".json")
}

// SendDecision puts d in the inbox of the session's gateway: written
// whole (0600), then linked into place, so the gateway never reads half
// of one, and a second decision on the same call fails with
// ErrDecisionQueued while the first waits.
func SendDecision(logDir, sessionID string, d Decision) error {
	if !ValidID(sessionID) || !ValidID(d.InvocationID) {
		return fmt.Errorf("not a session and call id: %q %q", sessionID, d.InvocationID)
	}
	dir := inboxDir(logDir, sessionID)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(d)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".new-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // linked or not, the temp name goes
	_, err = tmp.Write(b)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	err = os.Link(tmp.Name(), decisionPath(logDir, sessionID, d.InvocationID))
	if errors.Is(err, fs.ErrExist) {
		return ErrDecisionQueued
	}
	return err
}

// DecisionQueued says whether a decision on the call still waits in the
// inbox (the gateway has not taken it yet).
func DecisionQueued(logDir, sessionID, invocationID string) bool {
	_, err := os.Stat(decisionPath(logDir, sessionID, invocationID))
	return err == nil
}

// AwaitTaken waits until the gateway of sessionID has taken the decision
// on invocationID from its inbox, until that gateway stops (no latch
// holds the session any more: it takes nothing more, so the wait ends
// then, not at the deadline), or until until; it says whether the
// decision still waits in the inbox. The gateway logs a decision before
// it takes the file away, so its log says what became of it either way.
func AwaitTaken(logDir, sessionID, invocationID string, until time.Time) (queued bool) {
	for i := 0; DecisionQueued(logDir, sessionID, invocationID); i++ {
		if !time.Now().Before(until) {
			return true
		}
		// Running takes the session's lock for a moment: asked every
		// tenth look, not at each.
		if i%10 == 9 && !Running(logDir, sessionID) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

// TakeWait is how long a process that sent a decision (latch approve,
// latch inbox) waits for the gateway to take it (AwaitTaken).
const TakeWait = 10 * time.Second

// NotTaken says why a decision sent to the gateway of sessionID still
// waits in its inbox after AwaitTaken, and that it is not lost.
func NotTaken(logDir, sessionID string) string {
	if !Running(logDir, sessionID) {
		return "sent, but its gateway (session " + sessionID + ") stopped before taking it; it applies it when started again"
	}
	return fmt.Sprintf("sent, but its gateway has not taken it in %d s; it applies it when it does", int(TakeWait/time.Second))
}

// InboxEvery is how often a gateway looks in its inbox (WatchInbox): a
// read of a folder that is mostly empty, so that latch approve's decision
// applies within a twentieth of a second.
const InboxEvery = 50 * time.Millisecond

// WatchInbox applies the decisions sent to this session (SendDecision)
// until ctx ends, looking every interval: each through GatewayDecide,
// then removed. report hears of each, with GatewayDecide's error when it
// did not apply (an unknown call, one decided or expired before).
func (s *Session) WatchInbox(ctx context.Context, every time.Duration, report func(Decision, error)) {
	if s.logDir == "" {
		return
	}
	dir := inboxDir(s.logDir, s.id)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		s.takeDecisions(dir, report)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// takeDecisions applies the decisions in dir, oldest name first.
func (s *Session) takeDecisions(dir string, report func(Decision, error)) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		var d Decision
		b, err := os.ReadFile(path)
		if err == nil {
			err = json.Unmarshal(b, &d)
		}
		if err == nil && d.InvocationID+".json" != name {
			err = fmt.Errorf("%s names call %q", name, d.InvocationID)
		}
		if err == nil {
			err = s.GatewayDecide(d.InvocationID, d.Approve, d.By, d.Reason)
		}
		_ = os.Remove(path) // applied or refused, it is done with
		if report != nil {
			report(d, err)
		}
	}
}

// Running says whether a latch process holds the session now (its
// gateway runs, and takes the decisions sent to it).
func Running(logDir, sessionID string) bool { return eventlog.Running(logDir, sessionID) }
