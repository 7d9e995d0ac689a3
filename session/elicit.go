package session

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"latch/mcp"
)

// FormField is one field of a server's form (see mcp.FormField).
type FormField = mcp.FormField

// FormOption is one choice of a select field (see mcp.FormOption).
type FormOption = mcp.FormOption

// Field kinds and elicitation modes and answers, re-exported for the UI.
const (
	FieldString  = mcp.FieldString
	FieldNumber  = mcp.FieldNumber
	FieldInteger = mcp.FieldInteger
	FieldBoolean = mcp.FieldBoolean
	FieldSelect  = mcp.FieldSelect
	FieldMulti   = mcp.FieldMulti

	ElicitForm    = mcp.ElicitForm
	ElicitURL     = mcp.ElicitURL
	ElicitAccept  = mcp.ElicitAccept
	ElicitDecline = mcp.ElicitDecline
	ElicitCancel  = mcp.ElicitCancel
)

// CheckForm says what is wrong with a form's content, by field name; the
// session checks again whatever it is given (see AnswerElicitation).
func CheckForm(fields []FormField, content map[string]any) map[string]string {
	return mcp.CheckForm(fields, content)
}

// FormatHint describes a string field's format ("an email address").
func FormatHint(format string) string { return mcp.FormatHint(format) }

// Event types of elicitation.
const (
	TypeElicitation  = "elicitation"
	TypeElicitAnswer = "elicitation_answer"
)

// ElicitationEvent is a server asking the person for something: a form to
// fill in (Fields) or a URL to open outside latch (URL, in printable ASCII:
// its host in punycode, the rest percent-encoded, see asciiLink; it is
// what is shown, opened and copied, as it is. Domain, its host, is shown
// apart). ID is what AnswerElicitation takes.
type ElicitationEvent struct {
	Header
	ID      string      `json:"id"`
	Server  string      `json:"server"`
	Mode    string      `json:"mode"`
	Message string      `json:"message"`
	Fields  []FormField `json:"fields,omitempty"`
	URL     string      `json:"url,omitempty"`
	Domain  string      `json:"domain,omitempty"`
	// ElicitationID is the server's id of a URL request.
	ElicitationID string `json:"elicitation_id,omitempty"`
}

// ElicitationAnswerEvent is the answer a request got: accept, decline or
// cancel, by the person ("user"), by latch for want of one ("policy":
// -p, a request latch cannot show) or because the server's request ended
// first ("server"). Content is an accepted form's values, with those of
// password fields redacted.
type ElicitationAnswerEvent struct {
	Header
	ID      string         `json:"id"`
	Server  string         `json:"server"`
	Mode    string         `json:"mode"`
	Action  string         `json:"action"`
	By      string         `json:"by"`
	Reason  string         `json:"reason,omitempty"`
	Content map[string]any `json:"content,omitempty"`
}

// elicitState is the requests waiting for the person, by id.
type elicitState struct {
	mu    sync.Mutex
	calls map[string]int // tool calls running, by server
	waits map[string]*elicitWait
	open  map[string]int         // requests shown and not answered, by server
	times map[string][]time.Time // when each server's recent requests came
}

// A server may have elicitOpen requests in front of the person at once,
// and make elicitPerMinute a minute; beyond, latch declines for the
// person: a server cannot bury the screen in forms.
const (
	elicitOpen      = 2
	elicitPerMinute = 20
)

// admit says why a server's request is declined for being one too many,
// or "" and counts it open (done undoes that).
func (e *elicitState) admit(server string, now time.Time) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open == nil {
		e.open, e.times = map[string]int{}, map[string][]time.Time{}
	}
	recent := e.times[server][:0]
	for _, t := range e.times[server] {
		if now.Sub(t) < time.Minute {
			recent = append(recent, t)
		}
	}
	e.times[server] = recent
	switch {
	case e.open[server] >= elicitOpen:
		return fmt.Sprintf("%s already has %d requests waiting for you; latch shows at most %d at once", server, e.open[server], elicitOpen)
	case len(recent) >= elicitPerMinute:
		return fmt.Sprintf("%s asked %d times in the last minute; latch allows %d", server, len(recent), elicitPerMinute)
	}
	e.open[server]++
	e.times[server] = append(e.times[server], now)
	return ""
}

// callStarted counts a tool call of server as running.
func (e *elicitState) callStarted(server string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.calls == nil {
		e.calls = map[string]int{}
	}
	e.calls[server]++
}

// callEnded counts a tool call of server as ended. When none of its calls
// runs any more, what it asked of the person while they ran is withdrawn:
// the handler that asked has returned, and an answer would go nowhere.
// (Over stdio a request's context outlives the call that made it.)
func (e *elicitState) callEnded(server string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.calls[server]--; e.calls[server] > 0 {
		return
	}
	for id, w := range e.waits {
		if w.server == server {
			close(w.gone)
			delete(e.waits, id)
		}
	}
}

// done ends a request admit counted.
func (e *elicitState) done(server string) {
	e.mu.Lock()
	e.open[server]--
	e.mu.Unlock()
}

// elicitWait is one request waiting for an answer.
type elicitWait struct {
	server string
	mode   string
	fields []FormField
	reply  chan elicitReply // buffered: AnswerElicitation never blocks
	gone   chan struct{}    // closed when the request is withdrawn (see callEnded)
}

type elicitReply struct {
	action  string
	content map[string]any
}

var elicitSeq atomic.Int64

// FormError is an answer to a form that does not fit its schema: what is
// wrong, by field name. The form stays open.
type FormError struct{ Problems map[string]string }

// Error lists the problems, by field name.
func (e *FormError) Error() string {
	names := make([]string, 0, len(e.Problems))
	for n := range e.Problems {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + ": " + e.Problems[n]
	}
	return "the form is not filled in right: " + strings.Join(parts, "; ")
}

// elicit answers a server's elicitation/create: it shows the request (an
// ElicitationEvent) and waits for AnswerElicitation, for ctx (the server's
// request) to end, or declines at once when no one can answer.
func (s *Session) elicit(ctx context.Context, server string, req mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	ev := &ElicitationEvent{Header: s.header(TypeElicitation), ID: "f" + strconv.FormatInt(elicitSeq.Add(1), 10),
		Server: server, Mode: req.Mode, Message: req.Message, ElicitationID: req.ID}
	why := describeElicit(ev, req)
	if why == "" && s.noOne {
		why = "no one can answer (latch runs with -p)"
	}
	if why == "" {
		if why = s.el.admit(server, time.Now()); why == "" {
			defer s.el.done(server)
		}
	}
	if why != "" {
		s.publish(ev)
		return s.elicitDone(ev, nil, ElicitDecline, "policy", why, nil), nil
	}
	// Waiting before it is shown: an answer may come as soon as it is.
	w := &elicitWait{server: server, mode: ev.Mode, fields: ev.Fields, reply: make(chan elicitReply, 1), gone: make(chan struct{})}
	s.el.mu.Lock()
	if s.el.waits == nil {
		s.el.waits = map[string]*elicitWait{}
	}
	s.el.waits[ev.ID] = w
	s.el.mu.Unlock()
	s.publish(ev)
	select {
	case r := <-w.reply:
		return s.elicitDone(ev, ev.Fields, r.action, "user", "", r.content), nil
	case <-ctx.Done():
	case <-w.gone:
	}
	s.el.mu.Lock()
	delete(s.el.waits, ev.ID)
	s.el.mu.Unlock()
	return s.elicitDone(ev, nil, ElicitCancel, "server",
		"the server's request ended before an answer (its call ended, or the connection closed)", nil), nil
}

// describeElicit fills in the event from the request: the form's fields,
// or the URL and its domain. It says why the request cannot be shown,
// "" when it can.
func describeElicit(ev *ElicitationEvent, req mcp.ElicitRequest) string {
	switch req.Mode {
	case ElicitForm:
		fields, err := mcp.ParseForm(req.Schema)
		if err != nil {
			return "latch cannot show this form: " + err.Error()
		}
		ev.Fields = fields
	case ElicitURL:
		link, domain, reason := asciiLink(req.URL)
		if reason != "" {
			return reason
		}
		ev.URL, ev.Domain = link, domain
	default:
		return fmt.Sprintf("unknown elicitation mode %q", req.Mode)
	}
	return ""
}

// elicitDone publishes the answer, with password fields' values redacted,
// and returns it for the server (the MCP manager then hides what the
// person typed into them everywhere, see mcp's learnPasswords).
func (s *Session) elicitDone(ev *ElicitationEvent, fields []FormField, action, by, reason string, content map[string]any) mcp.ElicitResponse {
	shown := maps.Clone(content)
	for _, f := range fields {
		if _, ok := content[f.Name].(string); ok && f.Secret {
			shown[f.Name] = "[redacted]"
		}
	}
	s.publish(&ElicitationAnswerEvent{Header: s.header(TypeElicitAnswer), ID: ev.ID, Server: ev.Server,
		Mode: ev.Mode, Action: action, By: by, Reason: reason, Content: shown})
	return mcp.ElicitResponse{Action: action, Content: content}
}

// AnswerElicitation answers a waiting request (the person at the
// keyboard): accept with a form's content, decline or cancel. The content
// is checked against the form's schema again; a *FormError says what does
// not fit, and the request keeps waiting.
func (s *Session) AnswerElicitation(id, action string, content map[string]any) error {
	switch action {
	case ElicitAccept, ElicitDecline, ElicitCancel:
	default:
		return fmt.Errorf("unknown answer %q (accept, decline or cancel)", action)
	}
	s.el.mu.Lock()
	defer s.el.mu.Unlock()
	w, ok := s.el.waits[id]
	if !ok {
		return fmt.Errorf("no request %s is waiting (it was answered, or the server withdrew it)", id)
	}
	switch {
	case action != ElicitAccept || w.mode != ElicitForm:
		content = nil
	case content == nil:
		content = map[string]any{}
	}
	if content != nil {
		if problems := mcp.CheckForm(w.fields, content); len(problems) > 0 {
			return &FormError{Problems: problems}
		}
	}
	delete(s.el.waits, id)
	w.reply <- elicitReply{action: action, content: content}
	return nil
}
