package session

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// decoders make an empty event of each type the log holds.
var decoders = func() map[string]func() Event {
	out := map[string]func() Event{}
	for typ, mk := range eventTypes {
		if write, _ := logged(mk()); write {
			out[typ] = mk
		}
	}
	return out
}()

// Summary describes a saved session for `latch sessions`.
type Summary struct {
	ID          string
	Path        string
	Started     time.Time
	Updated     time.Time // the last write
	Model       string
	FirstPrompt string   // the first prompt after the last /clear
	Messages    int      // the prompts sent, in all
	Pending     []string // approval ids still waiting
	// Gateway: a run of latch serve (Options.Gateway), not a chat. Calls
	// counts the calls its clients made; Waiting holds, for each of them
	// still waiting for a person, when it stops waiting.
	Gateway bool
	Calls   int
	Waiting []time.Time
	// Parent is the id of the session this one was forked from ("" for
	// none; see Fork).
	Parent string
}

// sessionLogs lists the session logs in dir: their paths and ids, leaving
// out files whose name is not a session id (not a log latch wrote).
func sessionLogs(dir string) (paths, ids []string, err error) {
	all, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, nil, err
	}
	for _, p := range all {
		if id := strings.TrimSuffix(filepath.Base(p), ".jsonl"); ValidID(id) {
			paths, ids = append(paths, p), append(ids, id)
		}
	}
	return paths, ids, nil
}

// List reads the summaries of every session in dir, newest first.
func List(dir string) ([]Summary, error) {
	paths, _, err := sessionLogs(dir)
	if err != nil {
		return nil, err
	}
	var out []Summary
	for _, p := range paths {
		sum, err := summarize(p)
		if err != nil {
			continue
		}
		out = append(out, sum)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, nil
}

func summarize(path string) (Summary, error) {
	f, err := os.Open(path)
	if err != nil {
		return Summary{}, err
	}
	defer func() { _ = f.Close() }() // read only
	sm := summarizer{Summary: Summary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Path: path},
		pending: map[string]bool{}, callOf: map[string]string{}, answered: map[string]bool{},
		clientCalls: map[string]bool{}, expires: map[string]time.Time{}, first: true}
	if fi, err := f.Stat(); err == nil {
		sm.Started, sm.Updated = fi.ModTime(), fi.ModTime()
	}
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			sm.line(line)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return sm.Summary, err
		}
	}
	sm.Pending = sm.stillPending()
	sm.Calls = len(sm.clientCalls)
	for _, id := range sm.Pending {
		if exp, ok := sm.expires[id]; ok {
			sm.Waiting = append(sm.Waiting, exp)
		}
	}
	return sm.Summary, nil
}

// summarizer is a Summary as the lines of its log are read.
type summarizer struct {
	Summary
	pending  map[string]bool   // approval ids parked and not resolved
	callOf   map[string]string // approval id → call id
	answered map[string]bool   // call ids with a tool_result
	order    []string          // approval ids as they were parked
	first    bool              // no line read yet
	// clientCalls are the ids of the calls a gateway's clients made;
	// expires, when each of their parked calls stops waiting.
	clientCalls map[string]bool
	expires     map[string]time.Time
}

// summaryLine is the part of a logged event a summary reads.
type summaryLine struct {
	Type       string     `json:"type"`
	Time       time.Time  `json:"time"`
	Model      string     `json:"model"`
	Text       string     `json:"text"`
	ApprovalID string     `json:"approval_id"`
	CallID     string     `json:"call_id"`
	Gateway    bool       `json:"gateway"`
	Client     string     `json:"client"`
	Expires    string     `json:"expires"`
	Fork       *ForkPoint `json:"fork"`
}

// line reads one line of the log; one that does not parse is skipped.
func (sm *summarizer) line(line []byte) {
	var e summaryLine
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch e.Type {
	case TypeSessionStarted:
		if sm.first {
			sm.Started, sm.Model = e.Time, e.Model
		}
		sm.Gateway = sm.Gateway || e.Gateway
		if sm.first && e.Fork != nil && ValidID(e.Fork.Parent) {
			sm.Parent = e.Fork.Parent
		}
	case TypeToolCall:
		if e.Client != "" {
			sm.clientCalls[e.CallID] = true
		}
	case TypeModelChanged:
		sm.Model = e.Model
	case TypeUserMessage:
		sm.Messages++
		if sm.FirstPrompt == "" {
			sm.FirstPrompt = e.Text
		}
	case TypeCleared:
		sm.FirstPrompt = ""
	case TypeApprovalParked:
		sm.pending[e.ApprovalID] = true
		sm.callOf[e.ApprovalID] = e.CallID
		sm.order = append(sm.order, e.ApprovalID)
		if e.Client != "" {
			exp, err := time.Parse(time.RFC3339Nano, e.Expires)
			if err != nil {
				exp = e.Time.Add(DefaultApprovalTTL) // as ResumeGateway takes it up
			}
			sm.expires[e.ApprovalID] = exp
		}
	case TypeApprovalResolved:
		delete(sm.pending, e.ApprovalID)
	case TypeToolResult:
		// A parked call answered without a decision (its turn was
		// cancelled) waits no more, as Resume sees it.
		sm.answered[e.CallID] = true
	}
	sm.first = false
}

// stillPending lists the approvals that still wait, as Resume sees them.
func (sm *summarizer) stillPending() []string {
	var out []string
	for _, id := range sm.order {
		if sm.pending[id] && !sm.answered[sm.callOf[id]] {
			out = append(out, id)
		}
	}
	return out
}

// Latest returns the id of the most recent session in dir that holds a
// conversation: runs of latch serve, and sessions where nothing was said,
// are passed over.
func Latest(dir string) (string, error) {
	list, err := List(dir)
	if err != nil {
		return "", err
	}
	for _, x := range list {
		if !x.Gateway && x.Messages > 0 {
			return x.ID, nil
		}
	}
	return "", fmt.Errorf("no saved session with a conversation in %s", dir)
}
