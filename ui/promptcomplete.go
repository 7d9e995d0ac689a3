package ui

import (
	"context"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// valueCache holds the values a server completed for one argument: the
// key says which (server, prompt, argument and the other arguments), from
// is what was typed when it was asked. A server completes by prefix, so
// its values for "En" are those for "E" that start with "En".
type valueCache struct {
	key    string
	from   string
	values []string
}

// promptCandidates are the prompts whose "/SERVER:PROMPT" starts with v.
// A name that would not survive being typed (a space, a control
// character) is not offered.
func (m *Model) promptCandidates(v string) []candidate {
	var out []candidate
	for _, p := range m.pr.list {
		text := "/" + p.Server + ":" + p.Name
		if strings.HasPrefix(text, v) && !strings.ContainsAny(text, " \"'") {
			out = append(out, candidate{text, promptAbout(p)})
		}
	}
	return out
}

// promptLine is a prompt's command line as typed so far, read for
// completion: the prompt, the arguments given, and the word at the end.
type promptLine struct {
	prompt session.Prompt
	args   map[string]string // the other words' values, by name
	last   promptArg
	base   string // the input before the last word
}

// readPromptLine reads the input v = "/SERVER:PROMPT args…" for a prompt
// the list has.
func (m *Model) readPromptLine(v string) (promptLine, bool) {
	head, rest, ok := strings.Cut(v, " ")
	server, name, _ := strings.Cut(strings.TrimPrefix(head, "/"), ":")
	if !ok {
		return promptLine{}, false
	}
	p, found := m.findPromptUI(server, name)
	if !found {
		return promptLine{}, false
	}
	words := splitPromptArgs(rest)
	if len(words) == 0 {
		words = []promptArg{{start: len(rest)}}
	}
	pl := promptLine{prompt: p, args: map[string]string{}, last: words[len(words)-1]}
	for _, w := range words[:len(words)-1] {
		if w.eq {
			pl.args[w.name] = w.value
		}
	}
	pl.base = v[:len(head)+1+pl.last.start]
	return pl, true
}

// promptArgCandidates complete a prompt's argument: its name ("city="),
// or its value from what the server completed (see completeValues).
func (m *Model) promptArgCandidates(v string) []candidate {
	pl, ok := m.readPromptLine(v)
	if !ok {
		return nil
	}
	if !pl.last.eq {
		return pl.nameCandidates()
	}
	var out []candidate
	if m.pr.values.key != pl.valueKey() || !strings.HasPrefix(pl.last.value, m.pr.values.from) {
		return nil
	}
	for _, val := range m.pr.values.values {
		if strings.HasPrefix(val, pl.last.value) {
			out = append(out, candidate{pl.base + pl.last.name + "=" + quoteValue(val), ""})
		}
	}
	return out
}

// nameCandidates are the arguments not given yet whose name starts with
// what is typed, required ones first.
func (pl promptLine) nameCandidates() []candidate {
	var req, opt []candidate
	for _, a := range pl.prompt.Arguments {
		if _, given := pl.args[a.Name]; given || !strings.HasPrefix(a.Name, pl.last.name) || strings.ContainsAny(a.Name, " \"'=") {
			continue
		}
		help := strings.Join(strings.Fields(a.Description), " ")
		if a.Required {
			req = append(req, candidate{pl.base + a.Name + "=", strings.TrimSpace("required · " + help)})
		} else {
			opt = append(opt, candidate{pl.base + a.Name + "=", help})
		}
	}
	return append(req, opt...)
}

// valueKey names the completion the last word asks for: the prompt, the
// argument and the other arguments' values (a server may narrow one
// argument by another).
func (pl promptLine) valueKey() string {
	names := make([]string, 0, len(pl.args))
	for k := range pl.args {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(pl.prompt.Server + "\x00" + pl.prompt.Name + "\x00" + pl.last.name)
	for _, k := range names {
		b.WriteString("\x00" + k + "=" + pl.args[k])
	}
	return b.String()
}

// promptValuesMsg carries the values a server completed.
type promptValuesMsg struct {
	key, from string
	input     string // the input when Tab asked
	values    []string
}

// completeValues asks the server, in a command, for the values of the
// argument whose value is being typed, unless what it said before still
// serves. A server that cannot complete gives nothing, and its error is
// not shown: Tab then just does nothing more.
func (m *Model) completeValues() tea.Cmd {
	v := m.input.value()
	pl, ok := m.readPromptLine(v)
	if !ok || !pl.last.eq || pl.last.name == "" {
		return nil
	}
	if _, known := pl.prompt.Argument(pl.last.name); !known {
		return nil
	}
	key, from := pl.valueKey(), pl.last.value
	if (m.pr.values.key == key && strings.HasPrefix(from, m.pr.values.from)) || m.pr.asking == key+"\x00"+from {
		return nil
	}
	m.pr.asking = key + "\x00" + from
	b, p, arg, others := m.prompt, pl.prompt, pl.last.name, pl.args
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		vals, err := b.CompletePrompt(ctx, p.Server, p.Name, arg, from, others)
		if err != nil {
			vals = nil
		}
		return promptValuesMsg{key: key, from: from, input: v, values: vals}
	}
}

// handlePromptValues keeps the values, and completes with them if the
// input is still what it was when Tab asked.
func (m *Model) handlePromptValues(msg promptValuesMsg) {
	if m.pr.asking == msg.key+"\x00"+msg.from {
		m.pr.asking = ""
	}
	m.pr.values = valueCache{key: msg.key, from: msg.from, values: sanitize.MapStrings(msg.values, sanitize.Line)}
	if m.input.value() == msg.input && m.modal == nil && m.picker == nil && m.token == nil {
		m.complete()
	}
	m.dirty = true
}
