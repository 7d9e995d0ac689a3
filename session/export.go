package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"latch/mcp"
	"latch/ui/sanitize"
)

// Export formats (latch export --format).
const (
	ExportMarkdown = "md"
	ExportJSON     = "json"
	ExportHTML     = "html"
)

// ExportOptions say how a session is exported.
type ExportOptions struct {
	Format string // ExportMarkdown (when empty), ExportJSON or ExportHTML
	// Servers are the configured servers: every credential they reveal
	// (read with Getenv) is redacted from the transcript, whatever the
	// log holds.
	Servers []ServerConfig
	Getenv  func(string) string
	// Held are latch's own credentials, redacted too.
	Held Held
}

// Export reads session id's log in dir and returns its transcript, with
// the warnings of reading the log (a torn last line). It reads the log
// without taking the session's lock: a session open in another latch is
// exported as far as it is written.
//
// Every event goes through the same doors as everything else that leaves
// a session: every credential the configured servers reveal is redacted,
// then for md and html every string is made inert as on the screen
// (Display); json is the events' wire form (Marshal), one a line. In md
// every value from outside (a prompt, a reply, a tool's name or result)
// is in a code span or a fenced block, where a Markdown viewer shows it
// as it is: no link, image or HTML of a model's or a server's making is
// ever rendered. In html every value is escaped, and the page allows
// neither scripts nor anything fetched (its Content-Security-Policy).
func Export(dir, id string, o ExportOptions) ([]byte, []string, error) {
	if err := Exists(dir, id); err != nil {
		return nil, nil, err
	}
	events, warns, err := LoadLog(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		return nil, nil, fmt.Errorf("export %s: %w", id, err)
	}
	red := mcp.New(o.Servers, mcp.Options{Getenv: o.Getenv, Held: o.Held}) // never started: it only redacts
	for i, e := range events {
		events[i] = mcp.RedactAll(red, e)
	}
	var out bytes.Buffer
	switch o.Format {
	case ExportJSON:
		for _, e := range events {
			b, err := Marshal(e)
			if err != nil {
				return nil, nil, err
			}
			out.Write(b)
			out.WriteByte('\n')
		}
		return out.Bytes(), warns, nil
	case ExportHTML:
		x := &exporter{sink: &htmlSink{b: &out}}
		x.run(id, events)
	case ExportMarkdown, "":
		x := &exporter{sink: &mdSink{b: &out}}
		x.run(id, events)
	default:
		return nil, nil, fmt.Errorf("export: unknown format %q (md, json or html)", sanitize.Line(o.Format))
	}
	return out.Bytes(), warns, nil
}

// part is a piece of a transcript's line: latch's own words, or a value
// from outside (a log, a model, a server), which the sink quotes.
type part struct {
	s     string
	value bool
}

// words are latch's own words; val is a value from outside.
func words(s string) part { return part{s: s} }
func val(s string) part   { return part{s: s, value: true} }

// sink writes a transcript in one format. Values from outside reach it
// only as parts marked value and as the text of block and fold, which it
// quotes so that they show as they are.
type sink interface {
	begin(title string)
	heading(level int, parts ...part)
	line(parts ...part)
	block(text, lang string)
	fold(summary, text string)
	end()
}

// exporter walks the events into a sink.
type exporter struct {
	sink    sink
	results map[string]bool // calls with a tool_result, by call id
}

func (x *exporter) run(id string, events []Event) {
	x.results = map[string]bool{}
	for _, e := range events {
		if r, ok := e.(*ToolResultEvent); ok {
			x.results[r.CallID] = true
		}
	}
	x.sink.begin("latch session " + sanitize.Line(id))
	x.sink.heading(1, words("latch session "), val(id))
	for _, e := range events {
		if e = Display(e); !x.more(e) {
			x.event(e)
		}
	}
	x.sink.end()
}

// event writes one event; see docs/SESSIONS.md (Exporting) for what is
// left out and why.
func (x *exporter) event(e Event) {
	s := x.sink
	switch e := e.(type) {
	case *SessionStarted:
		x.started(e)
	case *UserMessage:
		s.heading(2, words(fmt.Sprintf("Turn %d · you", e.Turn)))
		s.block(e.Text, "text")
	case *AssistantMessage:
		x.reply(e)
	case *ToolCallEvent:
		x.toolCall(e)
	case *PermissionEvent:
		s.line(withReason([]part{words("decision on "), val(e.CallID), words(": "), val(e.Decision), words(" by "), val(e.By),
			words(" (mode "), val(e.Mode), words(")")}, e.Reason)...)
	case *ApprovalParkedEvent:
		ps := []part{words("call "), val(e.CallID), words(" waits for approval "), val(e.ApprovalID)}
		if e.Client != "" {
			ps = append(ps, words(" · by MCP client "), val(e.Client), words(" · until "), val(e.Expires))
		}
		s.line(ps...)
	case *ApprovalResolvedEvent:
		s.line(withReason([]part{words("approval "), val(e.ApprovalID), words(" of call "), val(e.CallID), words(": "),
			val(e.Decision), words(" by "), val(e.By)}, e.Reason)...)
	case *ToolResultEvent:
		x.result(e)
	case *ToolTaskEvent:
		s.line(withReason([]part{words("call "), val(e.CallID), words(" as task "), val(e.TaskID), words(" on "),
			val(e.Server), words(": "), val(e.Status)}, e.Message)...)
	case *TurnDone:
		s.line(words(fmt.Sprintf("turn %d ended: ", e.Turn)), val(e.Reason),
			words(fmt.Sprintf(" · %d prompt tokens, %d generated", e.Metrics.PromptTokens, e.Metrics.EvalTokens)))
	case *Error:
		s.line(words("error: "), val(e.Message))
	case *Notice:
		s.line(words("notice: "), val(e.Text))
	case *CallRetriedEvent:
		s.line(words("call "), val(e.CallID), words(" ("), val(e.Tool), words(") run again after a crash: "), val(e.Reason))
	case *Cleared:
		s.heading(2, words("/clear: the model starts afresh from here"))
	case *ModelChanged:
		s.line(words("model now "), val(e.Model))
	case *SettingsEvent:
		x.settings(e)
	case *ServerStatusEvent:
		s.line(withReason([]part{words("server "), val(e.Server), words(": "), val(e.Summary)}, e.Reason)...)
	case *MessageEvent:
		// The model's copy of the conversation, shown by the events
		// above; only an answer latch gave a call itself (no
		// tool_result: a dismissed call, one a fork left behind) is not.
		if e.Role == "tool" && !x.results[e.ToolCallID] {
			s.line(words("the model was told of call "), val(e.ToolCallID), words(" ("), val(e.ToolName), words("):"))
			s.block(e.Content, "text")
		}
	default:
		s.line(words("event "), val(e.Head().Type))
		s.block(jsonText(e), "json")
	}
}

// started writes the start of the session (or of the fork, or of a
// gateway's run).
func (x *exporter) started(e *SessionStarted) {
	s := x.sink
	s.line(words("started "), val(stamp(e.Time)), words(" · model "), val(e.Model), words(" · Ollama "), val(e.Host))
	if e.Gateway {
		s.line(words("a run of latch serve (gateway): its clients' calls"))
	}
	if e.Fork != nil {
		s.line(words("forked from session "), val(e.Fork.Parent), words(fmt.Sprintf(" at its turn %d", e.Fork.Turn)))
	}
}

// reply writes the model's reply, its thinking folded.
func (x *exporter) reply(e *AssistantMessage) {
	s := x.sink
	s.heading(3, words("model"))
	if e.Thinking != "" {
		s.fold("thinking", e.Thinking)
	}
	if e.Content != "" {
		s.block(e.Content, "markdown")
	}
	if e.Partial {
		s.line(words("(the reply did not finish)"))
	}
}

// toolCall writes a tool call and its arguments.
func (x *exporter) toolCall(e *ToolCallEvent) {
	ps := []part{words("tool call "), val(e.Tool), words(" on "), val(e.Server), words(" · id "), val(e.CallID)}
	if e.FromText {
		ps = append(ps, words(" · written by the model as text"))
	}
	if e.Client != "" {
		ps = append(ps, words(" · by MCP client "), val(e.Client))
	}
	x.sink.line(ps...)
	x.sink.block(jsonText(e.Arguments), "json")
}

// result writes a tool call's outcome and what the model was given.
func (x *exporter) result(e *ToolResultEvent) {
	outcome := "ok"
	switch {
	case e.Cancelled:
		outcome = "cancelled"
	case e.Error != "":
		outcome = "failed"
	case e.IsError:
		outcome = "the tool reported an error"
	}
	x.sink.line(words("result of "), val(e.CallID), words(" ("), val(e.Tool), words("): "+outcome+fmt.Sprintf(" · %d ms", e.DurationMS)))
	text := e.Content
	if text == "" {
		text = e.Preview
	}
	if e.Error != "" {
		text = e.Error
	}
	if text != "" {
		x.sink.block(text, "text")
	}
}

// settings writes the permission settings: modes, grants, --allow.
func (x *exporter) settings(e *SettingsEvent) {
	ps := []part{words("permissions: mode "), val(e.Mode)}
	for _, server := range sortedKeys(e.ServerModes) {
		ps = append(ps, words(" · "), val(server), words(" "), val(e.ServerModes[server]))
	}
	if len(e.Grants) > 0 {
		ps = append(ps, words(" · granted for the session: "), val(strings.Join(sortedKeys(e.Grants), ", ")))
	}
	if len(e.FlagAllow) > 0 {
		ps = append(ps, words(" · --allow "), val(strings.Join(e.FlagAllow, ", ")))
	}
	x.sink.line(ps...)
}

func withReason(ps []part, reason string) []part {
	if reason == "" {
		return ps
	}
	return append(ps, words(": "), val(reason))
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// stamp is an event's time for a transcript.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// jsonText is v as indented JSON, HTML characters as they are (the sink
// quotes them).
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
