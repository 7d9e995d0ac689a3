package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// These tests write real session logs (a session talking to the fake
// Ollama, with an in-process MCP server) and read them back: LoadLog,
// Resume, List and Latest.

// logModel can call tools and think, so that the logged history holds
// thinking, tool calls and tool results.
var logModel = ollamatest.Model{Name: "qwen3:8b", Family: "qwen3", Capabilities: []string{"completion", "tools", "thinking"}}

// logBox is an in-process MCP server with a read-only tool (peek) and a
// write (put) that counts its runs: puts is the witness of how many times
// a write really ran.
type logBox struct {
	srv *mcpserver.MCPServer

	mu   sync.Mutex
	puts []string
}

func newLogBox() *logBox {
	b := &logBox{}
	b.srv = mcpserver.NewMCPServer("box", "1.0", mcpserver.WithToolCapabilities(true))
	b.srv.AddTool(mcpgo.NewTool("peek", mcpgo.WithDescription("Look into the box."), mcpgo.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("the box holds: " + strings.Join(b.written(), ", ")), nil
		})
	b.srv.AddTool(mcpgo.NewTool("put", mcpgo.WithDescription("Put a thing into the box."), mcpgo.WithString("thing", mcpgo.Required())),
		func(ctx context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			thing := req.GetString("thing", "")
			b.mu.Lock()
			b.puts = append(b.puts, thing)
			b.mu.Unlock()
			return mcpgo.NewToolResultText("put " + thing + " into the box"), nil
		})
	return b
}

func (b *logBox) written() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.puts)
}

// logOptions are the options of a logging session on ol with the box
// server; peek is allow-listed, put is not.
func logOptions(ol *ollamatest.Server, dir string, box *logBox, mode permissions.Mode) session.Options {
	o := session.Options{Client: ol.Client(), Host: ol.Host(), Model: logModel.Name, LogDir: dir,
		Policy: permissions.Policy{Mode: mode, ServerAllow: map[string][]string{"box": {"peek"}}}}
	if box != nil {
		o.Servers = []session.ServerConfig{{Name: "box", Transport: "inprocess", InProcess: box.srv}}
	}
	return o
}

// startLogged makes a session from o, starts it (session_started) and its
// servers, and waits until the box tools are listed when there are
// servers. It is closed when the test ends.
func startLogged(t *testing.T, s *session.Session) *reader {
	t.Helper()
	t.Cleanup(s.Close)
	r := newReader(t, s)
	s.Start()
	s.StartServers()
	if len(s.ServerNames()) > 0 {
		deadline := time.Now().Add(timeout)
		for {
			tools, _ := s.Tools("")
			if len(tools) >= 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the box server did not list its tools within %v: %+v", timeout, s.Servers())
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	return r
}

func logCall(id, name string, kv ...string) api.ToolCall {
	args := api.NewToolCallFunctionArguments()
	for i := 0; i+1 < len(kv); i += 2 {
		args.Set(kv[i], kv[i+1])
	}
	return api.ToolCall{ID: id, Function: api.ToolCallFunction{Name: name, Arguments: args}}
}

func logCallsTurn(calls ...api.ToolCall) ollamatest.Turn {
	return ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: calls}}}
}

// thinkingTurn is a reply that thinks, then answers.
func thinkingTurn(thought, answer string) ollamatest.Turn {
	return ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens(thought), ollamatest.Tokens(answer)...)}
}

func logFile(dir, id string) string { return filepath.Join(dir, id+".jsonl") }

// logLines returns the lines of a log file, without their newlines.
func logLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func writeLines(t *testing.T, path string, lines []string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// chatLog runs a plain two-turn conversation in a new logging session in
// dir, closes it, and returns its id and history.
func chatLog(t *testing.T, dir string) (string, []session.Message) {
	t.Helper()
	ol := newServer(t, logModel)
	ol.Script(thinkingTurn("The user greets me.", "Hello! How can I help?"),
		ollamatest.TextTurn("Two lines:\nfirst ✓, then \"second\"."))
	s := session.New(logOptions(ol, dir, nil, permissions.ReadOnly))
	r := startLogged(t, s)
	send(t, s, "hi there")
	finishedWith(t, r.turn(), session.ReasonStop)
	send(t, s, "give me two lines")
	finishedWith(t, r.turn(), session.ReasonStop)
	h := s.History()
	s.Close()
	return s.ID(), h
}

func finishedWith(t *testing.T, evs []session.Event, reason string) {
	t.Helper()
	if d := done(t, evs); d.Reason != reason {
		t.Fatalf("turn ended %q, want %q: %s", d.Reason, reason, kinds(evs))
	}
}

// resume resumes id from dir against ol (a fresh server when nil) and
// closes it when the test ends.
func resume(t *testing.T, o session.Options, dir, id string) (*session.Session, *session.Resumed) {
	t.Helper()
	o.Model = "" // the logged one
	s, res, err := session.Resume(o, dir, id)
	if err != nil {
		t.Fatalf("Resume(%s): %v", id, err)
	}
	t.Cleanup(s.Close)
	return s, res
}

func TestLogWritesFinishedMessagesNotDeltas(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, _ := chatLog(t, dir)
	seen := map[string]int{}
	for i, line := range logLines(t, logFile(dir, id)) {
		var h session.Header
		if err := json.Unmarshal([]byte(line), &h); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, line)
		}
		if h.SessionID != id || h.Time.IsZero() {
			t.Errorf("line %d: session_id %q time %v: %s", i+1, h.SessionID, h.Time, line)
		}
		seen[h.Type]++
	}
	for _, typ := range []string{session.TypeAssistantDelta, session.TypeThinkingDelta, session.TypeToolProgress} {
		if seen[typ] > 0 {
			t.Errorf("%d %s events in the log: deltas must not be written one by one", seen[typ], typ)
		}
	}
	want := map[string]int{session.TypeSessionStarted: 1, session.TypeUserMessage: 2, session.TypeAssistantMessage: 2,
		session.TypeTurnDone: 2, session.TypeMessage: 4}
	for typ, n := range want {
		if seen[typ] != n {
			t.Errorf("%d %s events in the log, want %d (all: %v)", seen[typ], typ, n, seen)
		}
	}
}

func TestLogFileModes(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	dir := session.StateDir(func(k string) string {
		if k == "XDG_STATE_HOME" {
			return state
		}
		return ""
	})
	if want := filepath.Join(state, "latch", "sessions"); dir != want {
		t.Fatalf("StateDir = %s, want %s", dir, want)
	}
	id, _ := chatLog(t, dir)
	for _, d := range []string{filepath.Join(state, "latch"), dir} {
		fi, err := os.Stat(d)
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o700 {
			t.Errorf("folder %s has mode %o, want 700", d, m)
		}
	}
	fi, err := os.Stat(logFile(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	if m := fi.Mode().Perm(); m != 0o600 {
		t.Errorf("log %s has mode %o, want 600", fi.Name(), m)
	}
}

func TestLogStateDir(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		env  func(string) string
		want string
	}{
		{env("XDG_STATE_HOME", "/st", "HOME", "/home/u"), "/st/latch/sessions"},
		{env("HOME", "/home/u"), "/home/u/.local/state/latch/sessions"},
		{env("XDG_STATE_HOME", "relative/st", "HOME", "/home/u"), "/home/u/.local/state/latch/sessions"},
	} {
		if got := session.StateDir(tc.env); got != tc.want {
			t.Errorf("StateDir = %s, want %s", got, tc.want)
		}
	}
}

func TestLogTornLastLineIsSkippedWithAWarning(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, history := chatLog(t, dir)
	path := logFile(dir, id)
	n := len(logLines(t, path))
	whole, _, err := session.LoadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	// A crash in mid-write: half an event, no newline.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"type":"user_message","time":"%s","session_id":"%s","turn":3,"te`, time.Now().UTC().Format(time.RFC3339Nano), id)
	f.Close()

	evs, warns, err := session.LoadLog(path)
	if err != nil {
		t.Fatalf("LoadLog with a torn last line: %v", err)
	}
	if len(evs) != len(whole) {
		t.Errorf("%d events, want the %d whole ones", len(evs), len(whole))
	}
	if len(warns) != 1 || !strings.Contains(warns[0], fmt.Sprintf("line %d", n+1)) || !strings.Contains(warns[0], path) {
		t.Fatalf("warnings %q, want one naming line %d of %s", warns, n+1, path)
	}

	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("Still here."))
	s, res := resume(t, logOptions(ol, dir, nil, permissions.ReadOnly), dir, id)
	if !slices.Equal(res.Warnings, warns) {
		t.Errorf("Resume warnings %q, want %q", res.Warnings, warns)
	}
	if got := s.History(); !reflect.DeepEqual(got, history) {
		t.Errorf("resumed history\n%+v\nwant\n%+v", got, history)
	}

	// The resumed session goes on in the same log: what it writes must
	// not glue onto the torn line, or the log becomes unreadable.
	r := startLogged(t, s)
	send(t, s, "are you there?")
	finishedWith(t, r.turn(), session.ReasonStop)
	s.Close()
	evs, warns, err = session.LoadLog(path)
	if err != nil {
		t.Fatalf("LoadLog after the resumed session wrote to the log: %v", err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings after the resumed session wrote to the log: %q", warns)
	}
	if um := of[*session.UserMessage](evs); len(um) != 3 || um[2].Text != "are you there?" {
		t.Errorf("user messages after resume: %+v", um)
	}
	s2, _ := resume(t, logOptions(newServer(t, logModel), dir, nil, permissions.ReadOnly), dir, id)
	if h := s2.History(); len(h) != len(history)+2 || !reflect.DeepEqual(h[:len(history)], history) {
		t.Errorf("history after a second resume: %+v", h)
	}
}

// A crash can also cut just the newline: the last event is whole, and is
// read. What the resumed session writes next must start a line of its own.
func TestLogLastLineWithoutItsNewlineIsRead(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, history := chatLog(t, dir)
	path := logFile(dir, id)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	whole, warns, err := session.LoadLog(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("LoadLog = %v, warnings %q; want the last event read", err, warns)
	}
	if _, ok := whole[len(whole)-1].(*session.TurnDone); !ok {
		t.Fatalf("last event %T, want the turn_done without its newline", whole[len(whole)-1])
	}
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("Yes."))
	s, _ := resume(t, logOptions(ol, dir, nil, permissions.ReadOnly), dir, id)
	if got := s.History(); !reflect.DeepEqual(got, history) {
		t.Errorf("resumed history %+v, want %+v", got, history)
	}
	r := startLogged(t, s)
	send(t, s, "still?")
	finishedWith(t, r.turn(), session.ReasonStop)
	s.Close()
	evs, warns, err := session.LoadLog(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("LoadLog after the resumed session wrote: %v, warnings %q", err, warns)
	}
	if n := len(of[*session.TurnDone](evs)); n != 3 {
		t.Errorf("%d turn_done events, want 3 (none lost)", n)
	}
}

func TestLogCorruptLineNamesItsNumber(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, _ := chatLog(t, dir)
	path := logFile(dir, id)
	lines := logLines(t, path)

	for _, tc := range []struct {
		name string
		edit func([]string) []string
		line int
	}{
		{"garbage in the middle", func(l []string) []string { return slices.Insert(slices.Clone(l), 2, "not json at all") }, 3},
		{"a cut line in the middle", func(l []string) []string {
			l = slices.Clone(l)
			l[3] = l[3][:len(l[3])/2]
			return l
		}, 4},
		{"a known event with a field of the wrong type", func(l []string) []string {
			l = slices.Clone(l)
			l[1] = `{"type":"user_message","time":"2026-01-02T03:04:05Z","session_id":"x","turn":"one","text":"hi"}`
			return l
		}, 2},
		// The last line, but whole (it ends with a newline): not a crash.
		{"a bad last line with its newline", func(l []string) []string { return append(slices.Clone(l), `{"type":`) }, len(lines) + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			p := logFile(sub, id)
			writeLines(t, p, tc.edit(lines))
			_, _, err := session.LoadLog(p)
			if !errors.Is(err, session.ErrCorruptLog) {
				t.Fatalf("LoadLog = %v, want ErrCorruptLog", err)
			}
			if want := fmt.Sprintf("line %d", tc.line); !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name %s of %s", err, want, p)
			}
			_, _, err = session.Resume(logOptions(newServer(t, logModel), sub, nil, permissions.ReadOnly), sub, id)
			if !errors.Is(err, session.ErrCorruptLog) {
				t.Errorf("Resume = %v, want ErrCorruptLog", err)
			}
		})
	}
}

func TestLogUnknownEventTypeIsSkipped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	id, history := chatLog(t, dir)
	path := logFile(dir, id)
	lines := logLines(t, path)
	whole, _, err := session.LoadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	future := fmt.Sprintf(`{"type":"hologram","time":"2030-01-01T00:00:00Z","session_id":%q,"turn":1,"beam":{"x":[1,2,3]}}`, id)
	writeLines(t, path, slices.Insert(slices.Clone(lines), 3, future, ""))
	evs, warns, err := session.LoadLog(path)
	if err != nil || len(warns) != 0 {
		t.Fatalf("LoadLog with an unknown event type: %v, warnings %q", err, warns)
	}
	if len(evs) != len(whole) {
		t.Errorf("%d events, want %d (the unknown one skipped)", len(evs), len(whole))
	}
	for i := range evs {
		if evs[i].Head().Type != whole[i].Head().Type {
			t.Errorf("event %d is %s, want %s", i, evs[i].Head().Type, whole[i].Head().Type)
		}
	}
	s, _ := resume(t, logOptions(newServer(t, logModel), dir, nil, permissions.ReadOnly), dir, id)
	if got := s.History(); !reflect.DeepEqual(got, history) {
		t.Errorf("resumed history %+v, want %+v", got, history)
	}
}

// wireMessage is what the model is sent of a message, for comparisons.
type wireMessage struct {
	Role, Content, Thinking, ToolName, ToolCallID string
	Calls                                         []string // id name arguments
}

func wire(ms []api.Message) []wireMessage {
	out := make([]wireMessage, len(ms))
	for i, m := range ms {
		w := wireMessage{Role: m.Role, Content: m.Content, Thinking: m.Thinking, ToolName: m.ToolName, ToolCallID: m.ToolCallID}
		for _, c := range m.ToolCalls {
			args, _ := json.Marshal(c.Function.Arguments)
			w.Calls = append(w.Calls, c.ID+" "+c.Function.Name+" "+string(args))
		}
		out[i] = w
	}
	return out
}

func TestLogResumeRebuildsTheHistoryExactly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	box := newLogBox()
	ol := newServer(t, logModel)
	ol.Script(
		thinkingTurn("A greeting.", "Hello!"),
		logCallsTurn(logCall("call_peek0001", "box__peek"), logCall("call_put00001", "box__put", "thing", "hat")),
		ollamatest.TextTurn("The box is empty, and I may not put the hat in."),
		ollamatest.TextTurn("Unicode ✓, \"quotes\", a\nnewline and a tab\t."),
	)
	s := session.New(logOptions(ol, dir, box, permissions.ReadOnly))
	r := startLogged(t, s)
	for _, p := range []string{"hi", "what is in the box? put a hat in", "say something odd"} {
		send(t, s, p)
		finishedWith(t, r.turn(), session.ReasonStop)
	}
	history := s.History()
	reqs := ol.Requests()
	last := reqs[len(reqs)-1]
	// What the model saw last, plus its answer: what a resumed session
	// must send again.
	want := wire(append(slices.Clone(last.Messages), api.Message{Role: "assistant", Content: "Unicode ✓, \"quotes\", a\nnewline and a tab\t."}))
	s.Close()

	ol2 := newServer(t, logModel)
	ol2.Script(ollamatest.TextTurn("Welcome back."))
	s2, res := resume(t, logOptions(ol2, dir, box, permissions.ReadOnly), dir, s.ID())
	if len(res.Warnings)+len(res.Pending)+len(res.InDoubt) != 0 {
		t.Errorf("Resumed = warnings %q, pending %+v, in doubt %+v; want none", res.Warnings, res.Pending, res.InDoubt)
	}
	if s2.ID() != s.ID() || s2.Model() != logModel.Name {
		t.Errorf("resumed id %q model %q, want %q %q", s2.ID(), s2.Model(), s.ID(), logModel.Name)
	}
	if got := s2.History(); !reflect.DeepEqual(got, history) {
		t.Errorf("resumed history\n%+v\nwant\n%+v", got, history)
	}
	if why := s2.Blocked(); why != "" {
		t.Errorf("Blocked() = %q, want \"\"", why)
	}
	r2 := startLogged(t, s2)
	send(t, s2, "still there?")
	finishedWith(t, r2.turn(), session.ReasonStop)
	got := wire(ol2.Requests()[0].Messages)
	if len(got) != len(want)+1 || got[len(got)-1].Content != "still there?" {
		t.Fatalf("the resumed session sent %d messages, want %d + the new prompt:\n%+v", len(got), len(want), got)
	}
	if !reflect.DeepEqual(got[:len(want)], want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("message %d: resumed %+v\nwant %+v", i, got[i], want[i])
			}
		}
	}
	if w := box.written(); len(w) != 0 {
		t.Errorf("the denied put ran: %v", w)
	}
}

// parkAndCrash runs a turn in approve mode whose put call parks, and copies
// the log as it is at that moment into a new folder: what a crash leaves on
// disk. It returns that folder, the session id and the approval id.
func parkAndCrash(t *testing.T, box *logBox, thing string) (dir, id, approval string) {
	return park(t, box, thing, false)
}

// park parks a put call as parkAndCrash does; with closeIt, the session is
// closed instead of crashing (a quit, or the end of a -p run with status 3).
func park(t *testing.T, box *logBox, thing string, closeIt bool) (dir, id, approval string) {
	t.Helper()
	live := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_put_"+thing, "box__put", "thing", thing)))
	s := session.New(logOptions(ol, live, box, permissions.Approve))
	r := startLogged(t, s)
	send(t, s, "put a "+thing+" in the box")
	evs := r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	parked := evs[len(evs)-1].(*session.ApprovalParkedEvent)
	if closeIt {
		s.Close()
		return live, s.ID(), parked.ApprovalID
	}
	data, err := os.ReadFile(logFile(live, s.ID()))
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	if err := os.WriteFile(logFile(dir, s.ID()), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, s.ID(), parked.ApprovalID
}

func TestLogParkedApprovalSurvivesARestart(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := parkAndCrash(t, box, "hat")
	if w := box.written(); len(w) != 0 {
		t.Fatalf("put ran while parked: %v", w)
	}
	sums, err := session.List(dir)
	if err != nil || len(sums) != 1 || !slices.Equal(sums[0].Pending, []string{ap}) {
		t.Fatalf("List = %+v, %v; want the session with %s pending", sums, err, ap)
	}

	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The hat is in the box."))
	s, res := resume(t, logOptions(ol, dir, box, permissions.Approve), dir, id)
	if len(res.Pending) != 1 {
		t.Fatalf("Resumed.Pending = %+v, want the parked call", res.Pending)
	}
	p := res.Pending[0]
	if p.ID != ap || p.CallID != "call_put_hat" || p.Server != "box" || p.Tool != "box__put" || p.Arguments["thing"] != "hat" {
		t.Errorf("pending approval %+v", p)
	}
	if len(res.InDoubt) != 0 {
		t.Errorf("in doubt %+v: a parked call never started", res.InDoubt)
	}
	if aps := s.Approvals(); len(aps) != 1 || aps[0].ID != ap {
		t.Errorf("Approvals() = %+v", aps)
	}
	if why := s.Blocked(); !strings.Contains(why, ap) {
		t.Errorf("Blocked() = %q, want it to name %s", why, ap)
	}
	if err := s.Send("never mind"); err == nil {
		t.Error("Send while the resumed turn waits for approval succeeded")
	}
	r := startLogged(t, s)
	if err := s.Decide(ap, true); err != nil {
		t.Fatalf("Decide(%s, true): %v", ap, err)
	}
	evs := r.turn()
	finishedWith(t, evs, session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"hat"}) {
		t.Fatalf("puts %v, want exactly one", w)
	}
	if res := one[*session.ToolResultEvent](t, evs); !res.OK || res.CallID != "call_put_hat" {
		t.Errorf("tool_result %+v", res)
	}
	if rs := one[*session.ApprovalResolvedEvent](t, evs); rs.ApprovalID != ap || rs.Decision != "approved" || rs.By != "user" {
		t.Errorf("approval_resolved %+v", rs)
	}
	if c, _ := texts(evs); c != "The hat is in the box." {
		t.Errorf("the turn went on with %q", c)
	}
	reqs := ol.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests after the decision, want 1", len(reqs))
	}
	var tool []api.Message
	for _, m := range reqs[0].Messages {
		if m.Role == "tool" {
			tool = append(tool, m)
		}
	}
	if len(tool) != 1 || tool[0].ToolCallID != "call_put_hat" || tool[0].Content != "put hat into the box" {
		t.Errorf("tool messages sent to the model: %+v", tool)
	}

	// The decision applies once, in this process and after another restart.
	if err := s.Decide(ap, true); !errors.Is(err, permissions.ErrAlreadyResolved) {
		t.Errorf("a second Decide = %v, want ErrAlreadyResolved", err)
	}
	s.Close()
	s2, res2 := resume(t, logOptions(newServer(t, logModel), dir, box, permissions.Approve), dir, id)
	if len(res2.Pending)+len(res2.InDoubt) != 0 {
		t.Errorf("after the decision: pending %+v, in doubt %+v", res2.Pending, res2.InDoubt)
	}
	if err := s2.Decide(ap, true); !errors.Is(err, permissions.ErrAlreadyResolved) {
		t.Errorf("Decide after a restart = %v, want ErrAlreadyResolved", err)
	}
	if s2.Continue() {
		t.Error("Continue started a turn although nothing is owed")
	}
	if w := box.written(); !slices.Equal(w, []string{"hat"}) {
		t.Fatalf("puts %v, want still exactly one", w)
	}
	if sums, _ := session.List(dir); len(sums) != 1 || len(sums[0].Pending) != 0 {
		t.Errorf("List after the decision = %+v, want nothing pending", sums)
	}
}

// Closing the session (a quit, or the end of a -p run that parked) leaves
// the parked call unanswered in the log: it is still pending when resumed.
func TestLogParkedApprovalSurvivesClose(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := park(t, box, "mug", true)
	evs, _, err := session.LoadLog(logFile(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range evs {
		switch e := e.(type) {
		case *session.ToolResultEvent:
			t.Errorf("a tool_result was logged for the parked call on close: %+v", e)
		case *session.MessageEvent:
			if e.Role == "tool" {
				t.Errorf("a tool message was logged for the parked call on close: %+v", e)
			}
		}
	}
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("The mug is in the box."))
	s, res := resume(t, logOptions(ol, dir, box, permissions.Approve), dir, id)
	if len(res.Pending) != 1 || res.Pending[0].ID != ap || res.Pending[0].CallID != "call_put_mug" {
		t.Fatalf("Resumed.Pending = %+v, want %s", res.Pending, ap)
	}
	r := startLogged(t, s)
	if err := s.Decide(ap, true); err != nil {
		t.Fatalf("Decide(%s, true): %v", ap, err)
	}
	finishedWith(t, r.turn(), session.ReasonStop)
	if w := box.written(); !slices.Equal(w, []string{"mug"}) {
		t.Errorf("puts %v, want exactly one", w)
	}
}

// Cancelling the turn (Esc) while a call waits for approval answers the
// call as cancelled: the approval is void, in this session, in latch
// sessions and after a restart. Approving it later is an error, never a
// silent no-op.
func TestLogCancelledParkedApprovalIsVoid(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(logCallsTurn(logCall("call_put_cup", "box__put", "thing", "cup")))
	s := session.New(logOptions(ol, dir, box, permissions.Approve))
	r := startLogged(t, s)
	send(t, s, "put a cup in the box")
	evs := r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	ap := evs[len(evs)-1].(*session.ApprovalParkedEvent).ApprovalID
	s.Cancel()
	finishedWith(t, r.turn(), session.ReasonCancelled)
	if aps := s.Approvals(); len(aps) != 0 {
		t.Errorf("Approvals() after the turn was cancelled = %+v, want none", aps)
	}
	if err := s.Decide(ap, true); err == nil {
		t.Errorf("Decide(%s) after the turn was cancelled succeeded; want an error", ap)
	}
	if sums, err := session.List(dir); err != nil || len(sums) != 1 || len(sums[0].Pending) != 0 {
		t.Errorf("List = %+v, %v; want nothing pending", sums, err)
	}
	s.Close()
	s2, res := resume(t, logOptions(newServer(t, logModel), dir, box, permissions.Approve), dir, s.ID())
	if len(res.Pending)+len(res.InDoubt) != 0 {
		t.Errorf("resumed: pending %+v, in doubt %+v; want none", res.Pending, res.InDoubt)
	}
	if err := s2.Decide(ap, true); err == nil {
		t.Errorf("Decide(%s) after a restart succeeded; want an error", ap)
	}
	if w := box.written(); len(w) != 0 {
		t.Errorf("a cancelled put ran: %v", w)
	}
}

func TestLogParkedApprovalRejectedAfterARestart(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir, id, ap := parkAndCrash(t, box, "cat")
	ol := newServer(t, logModel)
	ol.Script(ollamatest.TextTurn("I did not put the cat in."))
	s, _ := resume(t, logOptions(ol, dir, box, permissions.Approve), dir, id)
	r := startLogged(t, s)
	if err := s.Decide(ap, false); err != nil {
		t.Fatalf("Decide(%s, false): %v", ap, err)
	}
	evs := r.turn()
	finishedWith(t, evs, session.ReasonStop)
	if w := box.written(); len(w) != 0 {
		t.Fatalf("a rejected put ran: %v", w)
	}
	var tool []api.Message
	for _, m := range ol.Requests()[0].Messages {
		if m.Role == "tool" {
			tool = append(tool, m)
		}
	}
	if len(tool) != 1 || tool[0].ToolCallID != "call_put_cat" {
		t.Fatalf("tool messages %+v", tool)
	}
	var e struct{ Error string }
	if err := json.Unmarshal([]byte(tool[0].Content), &e); err != nil || !strings.Contains(e.Error, "user") ||
		!strings.Contains(e.Error, "rejected") {
		t.Errorf("tool message %q, want an error saying the user rejected the call", tool[0].Content)
	}
}

func TestLogListAndLatest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := session.Latest(dir); err == nil {
		t.Error("Latest of an empty folder succeeded")
	}
	if list, err := session.List(filepath.Join(dir, "missing")); err != nil || len(list) != 0 {
		t.Errorf("List of a missing folder = %+v, %v", list, err)
	}
	older, _ := chatLog(t, dir)
	newer, _ := chatLog(t, dir)
	box := newLogBox()
	pdir, parked, ap := parkAndCrash(t, box, "pen")
	data, err := os.ReadFile(logFile(pdir, parked))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logFile(dir, parked), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a log"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The order is by last write; make it unambiguous.
	now := time.Now()
	for i, id := range []string{older, parked, newer} {
		at := now.Add(time.Duration(i-3) * time.Minute)
		if err := os.Chtimes(logFile(dir, id), at, at); err != nil {
			t.Fatal(err)
		}
	}
	list, err := session.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range list {
		ids = append(ids, x.ID)
	}
	if !slices.Equal(ids, []string{newer, parked, older}) {
		t.Fatalf("List ids %v, want newest first %v", ids, []string{newer, parked, older})
	}
	for _, x := range list {
		if x.Model != logModel.Name || x.Started.IsZero() || x.Path != logFile(dir, x.ID) {
			t.Errorf("summary %+v", x)
		}
	}
	if list[0].FirstPrompt != "hi there" || len(list[0].Pending) != 0 {
		t.Errorf("summary of %s: %+v", newer, list[0])
	}
	if list[1].FirstPrompt != "put a pen in the box" || !slices.Equal(list[1].Pending, []string{ap}) {
		t.Errorf("summary of the parked session: %+v", list[1])
	}
	latest, err := session.Latest(dir)
	if err != nil || latest != newer {
		t.Errorf("Latest = %q, %v; want %q", latest, err, newer)
	}
	at := now.Add(time.Minute)
	if err := os.Chtimes(logFile(dir, older), at, at); err != nil {
		t.Fatal(err)
	}
	if latest, _ := session.Latest(dir); latest != older {
		t.Errorf("Latest = %q after %s was written last, want it", latest, older)
	}
}
