package session

import (
	"fmt"
	"net/url"
	"strings"
)

// more writes, in words, the events that are not part of a turn's
// exchange: the instructions sent, compaction, a server's lists, prompts,
// resources, its requests (elicitation, sampling) and logins. It reports
// false for an event it has no words for.
func (x *exporter) more(e Event) bool {
	s := x.sink
	switch e := e.(type) {
	case *InstructionsEvent:
		x.instructions(e)
	case *CompactionEvent:
		x.compaction(e)
	case *ToolsChangedEvent:
		ps := []part{words("server "), val(e.Server), words(fmt.Sprintf(" now offers %s", count(e.Tools, "tool", "tools")))}
		ps = listed(" · changed: ", e.Changed, ps)
		s.line(listed(" · removed: ", e.Removed, ps)...)
	case *PromptsChangedEvent:
		ps := []part{words("server "), val(e.Server), words(fmt.Sprintf(" now offers %s", count(e.Prompts, "prompt", "prompts")))}
		if e.First {
			ps = append(ps, words(" (first listing)"))
		}
		ps = listed(" · added: ", e.Added, ps)
		ps = listed(" · changed: ", e.Changed, ps)
		s.line(listed(" · removed: ", e.Removed, ps)...)
	case *PromptEvent:
		x.prompt(e)
	case *AttachmentEvent:
		x.attachment(e)
	case *ResourceUpdatedEvent:
		s.line(words("server "), val(e.Server), words(" said resource "), val(e.URI), words(" changed"))
	case *ResourcesChangedEvent:
		s.line(words("server "), val(e.Server), words(" said its list of resources changed"))
	case *ElicitationEvent:
		x.elicitation(e)
	case *ElicitationAnswerEvent:
		x.elicitAnswer(e)
	case *SamplingEvent:
		x.sampling(e)
	case *LoginURLEvent:
		// The page's address carries the login's state: only its host.
		s.line(words("server "), val(e.Server), words(" asked for a login in the browser, at "), val(loginHost(e.URL)))
	default:
		return false
	}
	return true
}

// instructions writes the instruction files the session sends with every
// request: names and sizes (the log keeps hashes, not their text).
func (x *exporter) instructions(e *InstructionsEvent) {
	if len(e.Instructions) == 0 {
		x.sink.line(words("instructions: none sent to the model"))
		return
	}
	x.sink.line(words(fmt.Sprintf("instructions sent to the model with every request (%s):",
		count(len(e.Instructions), "file", "files"))))
	for _, in := range e.Instructions {
		ps := []part{words("· "), val(in.Name)}
		if in.Path != "" {
			ps = append(ps, words(" from "), val(in.Path))
		}
		ps = append(ps, words(fmt.Sprintf(" · %s · sha256 ", count(in.Bytes, "byte", "bytes"))), val(shortHash(in.SHA256)))
		x.sink.line(ps...)
	}
}

// compaction writes a step of a compaction, or its undoing.
func (x *exporter) compaction(e *CompactionEvent) {
	s := x.sink
	what := fmt.Sprintf("turns %s (%s)", turnSpan(e.FirstTurn, e.LastTurn), count(e.Messages, "message", "messages"))
	switch e.Step {
	case CompactStarted:
		ps := []part{words("compaction began: " + what + " to be summarized for the model")}
		if e.Auto {
			ps = append(ps, words(fmt.Sprintf(" · automatic, the context was %d %% full", e.UsedPct)))
		}
		if e.Focus != "" {
			ps = append(ps, words(" · keeping above all: "), val(e.Focus))
		}
		s.line(ps...)
	case CompactDone:
		s.line(words(fmt.Sprintf("compacted %s: from here the model saw this summary in their place · prompt ~%s → ~%s tokens",
			what, ShortTokens(e.Before), ShortTokens(e.After))))
		if e.Summary != "" {
			s.block(e.Summary, "text")
		}
	case CompactCancelled:
		s.line(withReason([]part{words("compaction cancelled, nothing changed")}, e.Reason)...)
	case CompactUndone:
		s.line(words(fmt.Sprintf("uncompacted: from here the model saw the whole conversation again (%s in place of the summary)",
			count(e.Messages, "message", "messages"))))
	default:
		s.line(withReason([]part{words("compaction failed, nothing changed")}, e.Reason)...)
	}
}

// prompt writes a server's prompt run as a turn's message.
func (x *exporter) prompt(e *PromptEvent) {
	s := x.sink
	ps := []part{words(fmt.Sprintf("Turn %d · you ran prompt ", e.Turn)), val(e.Prompt), words(" of server "), val(e.Server)}
	s.heading(2, ps...)
	if e.Title != "" || e.Description != "" {
		s.line(val(e.Title), words(": "), val(e.Description))
	}
	for _, k := range sortedKeys(e.Arguments) {
		s.line(words("· "), val(k), words(" = "), val(e.Arguments[k]))
	}
	for _, m := range e.Messages {
		s.line(words("message as "), val(m.Role), words(":"))
		s.block(m.Text, "text")
	}
}

// attachment writes a resource attached to a message.
func (x *exporter) attachment(e *AttachmentEvent) {
	ps := []part{words(fmt.Sprintf("turn %d: attached ", e.Turn)), val(e.URI), words(" of server "), val(e.Server),
		words(" ("), val(e.Kind)}
	if e.MIMEType != "" {
		ps = append(ps, words(", "), val(e.MIMEType))
	}
	ps = append(ps, words(fmt.Sprintf(") · the model was given %s of %s", count(e.Sent, "byte", "bytes"), count(e.Size, "byte", "bytes"))))
	if e.Cut {
		ps = append(ps, words(", cut"))
	}
	x.sink.line(withReason(ps, e.Note)...)
}

// elicitation writes a server's request for information.
func (x *exporter) elicitation(e *ElicitationEvent) {
	ps := []part{words("server "), val(e.Server), words(" asked the person (request "), val(e.ID), words(")")}
	if e.Mode == ElicitURL {
		ps = append(ps, words(" to open a page on "), val(e.Domain))
	}
	x.sink.line(append(ps, words(": "), val(e.Message))...)
	for _, f := range e.Fields {
		fs := []part{words("· field "), val(f.Name), words(" ("), val(f.Kind)}
		if f.Required {
			fs = append(fs, words(", required"))
		}
		fs = append(fs, words(")"))
		if f.Title != "" {
			fs = append(fs, words(": "), val(f.Title))
		}
		x.sink.line(fs...)
	}
}

// elicitAnswer writes the answer a server's request got.
func (x *exporter) elicitAnswer(e *ElicitationAnswerEvent) {
	x.sink.line(withReason([]part{words("request "), val(e.ID), words(" of server "), val(e.Server), words(": "),
		val(e.Action), words(" by "), val(e.By)}, e.Reason)...)
	for _, k := range sortedKeys(e.Content) {
		x.sink.line(words("· "), val(k), words(" = "), val(fmt.Sprint(e.Content[k])))
	}
}

// sampling writes a step of a server's request for the model's time.
func (x *exporter) sampling(e *SamplingEvent) {
	s := x.sink
	head := []part{words("server "), val(e.Server), words(" asked the model for an answer (request "), val(e.RequestID), words("): ")}
	switch e.Step {
	case SamplingAnswered:
		ps := append(head, words("the model "), val(e.Model), words(" answered"))
		if e.Truncated {
			ps = append(ps, words(", stopped at the token limit"))
		}
		if e.Review {
			ps = append(ps, words(", for the person to review before it was sent"))
		}
		s.line(ps...)
		s.block(e.Answer, "text")
		return
	case SamplingAsked:
		head = append(head, words("the person was asked"))
	default:
		head = append(head, val(e.Step))
		if e.By != "" {
			head = append(head, words(" by "), val(e.By))
		}
	}
	s.line(withReason(head, e.Reason)...)
	if e.SystemPrompt != "" {
		s.line(words("its system prompt:"))
		s.block(e.SystemPrompt, "text")
	}
	for i, m := range e.Messages {
		role := ""
		if i < len(e.Roles) {
			role = e.Roles[i]
		}
		s.line(words("its message as "), val(role), words(":"))
		s.block(m, "text")
	}
}

// listed appends " · label: a, b" to ps when names is not empty.
func listed(label string, names []string, ps []part) []part {
	if len(names) == 0 {
		return ps
	}
	return append(ps, words(label), val(strings.Join(names, ", ")))
}

// count is "1 tool", "2 tools".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// shortHash is the first 12 digits of a hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// loginHost is the host of a login page's address, never its query.
func loginHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return u.Host
}
