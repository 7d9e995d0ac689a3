package ui

import (
	"context"
	"sort"
	"strings"
	"unicode"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/ui/sanitize"
)

// resState is what the UI keeps of the servers' resources for @
// completion: their listings, and the values servers gave for template
// variables. Asking for either runs in a command.
type resState struct {
	lists  map[string]session.ResourceListing
	comps  map[string][]string
	asking map[string]bool // what is being asked, by key
}

// resCache is the model's resState, made on first use.
func (m *Model) resCache() *resState {
	if m.rs == nil {
		m.rs = &resState{lists: map[string]session.ResourceListing{}, comps: map[string][]string{}, asking: map[string]bool{}}
	}
	return m.rs
}

// atWord is the word being typed at the end of the input when it starts
// with @ (the @ left off), and whether it does.
func atWord(v string) (string, bool) {
	i := strings.LastIndexFunc(v, unicode.IsSpace)
	w := v[i+1:]
	if !strings.HasPrefix(w, "@") || strings.HasPrefix(strings.TrimSpace(v), "/") {
		return "", false
	}
	return w[1:], true
}

// atCandidates complete @SERVER:URI from what is known: server names,
// then the server's resources, its templates' text up to a variable, and
// the values its completions gave for that variable.
func (m *Model) atCandidates(v, word string) []candidate {
	base := v[:len(v)-len(word)-1] + "@"
	server, rest, hasColon := strings.Cut(word, ":")
	if !hasColon {
		var opts []candidate
		for _, n := range m.resServers() {
			opts = append(opts, candidate{n + ":", "resources of " + n})
		}
		return completing(base, word, opts)
	}
	l, ok := m.resCache().lists[server]
	if !ok {
		return nil
	}
	base += server + ":"
	var opts []candidate
	for _, r := range l.Resources {
		opts = append(opts, candidate{sanitize.Line(r.URI), sanitize.Line(r.Name)})
	}
	for _, t := range l.Templates {
		opts = append(opts, m.templateOptions(server, t, rest)...)
	}
	return completing(base, rest, opts)
}

// resServers are the servers whose resources can be attached.
func (m *Model) resServers() []string {
	if m.res == nil {
		return nil
	}
	return m.res.ResourceServers()
}

// templateOptions complete a template as far as typed: its text up to
// the next variable, or the values given for the variable being typed.
func (m *Model) templateOptions(server string, t session.ResourceTemplate, typed string) []candidate {
	tm, ok := matchTemplate(t.URITemplate, typed)
	switch {
	case !ok:
		return nil
	case tm.name == "":
		return []candidate{{sanitize.Line(tm.text), "template " + sanitize.Line(t.URITemplate)}}
	}
	var out []candidate
	for _, val := range m.resCache().comps[compKey(server, t.URITemplate, tm)] {
		out = append(out, candidate{sanitize.Line(tm.text + val), sanitize.Line(t.Name)})
	}
	return out
}

// tmplMatch is how far typed text goes into a URI template. With name
// set, typed is in that variable: text is what comes before its value,
// value what is typed of it, filled the variables before it. Without,
// text is the typed text completed up to the next variable (or the end).
type tmplMatch struct {
	text   string
	name   string
	value  string
	filled map[string]string
}

// tmplPart is a piece of a URI template: text, or a variable.
type tmplPart struct {
	text  string
	isVar bool
}

// splitTemplate cuts a URI template into text and variables. An
// expression's operator and modifiers are dropped ({+path*} is path); of
// a list of variables only the first is kept.
func splitTemplate(t string) []tmplPart {
	var out []tmplPart
	for t != "" {
		i := strings.IndexByte(t, '{')
		j := strings.IndexByte(t[max(i, 0):], '}')
		if i < 0 || j < 0 {
			return append(out, tmplPart{text: t})
		}
		if i > 0 {
			out = append(out, tmplPart{text: t[:i]})
		}
		name := strings.TrimLeft(t[i+1:i+j], "+#./;?&")
		name, _, _ = strings.Cut(name, ",")
		name = strings.TrimRight(strings.Split(name, ":")[0], "*")
		out = append(out, tmplPart{text: name, isVar: true})
		t = t[i+j+1:]
	}
	return out
}

// matchTemplate reads typed text against a URI template; ok is false when
// it does not fit.
func matchTemplate(tmpl, typed string) (tmplMatch, bool) {
	parts := splitTemplate(tmpl)
	pos := 0
	filled := map[string]string{}
	for i, p := range parts {
		rest := typed[pos:]
		if !p.isVar {
			switch {
			case strings.HasPrefix(rest, p.text):
				pos += len(p.text)
				continue
			case strings.HasPrefix(p.text, rest):
				return tmplMatch{text: typed + p.text[len(rest):]}, true
			}
			return tmplMatch{}, false
		}
		if i+1 < len(parts) && !parts[i+1].isVar {
			if j := strings.Index(rest, parts[i+1].text); j >= 0 {
				filled[p.text] = rest[:j]
				pos += j
				continue
			}
		}
		return tmplMatch{text: typed[:pos], name: p.text, value: rest, filled: filled}, true
	}
	return tmplMatch{}, false // all typed: the URI itself is no template's
}

func compKey(server, tmpl string, tm tmplMatch) string {
	keys := make([]string, 0, len(tm.filled))
	for k, v := range tm.filled {
		keys = append(keys, k+"="+v)
	}
	sort.Strings(keys)
	return strings.Join([]string{server, tmpl, tm.name, tm.value, strings.Join(keys, "&")}, "\x00")
}

// resListMsg is a server's listing, asked for by @ completion.
type resListMsg struct {
	server string
	list   session.ResourceListing
	err    error
}

// resCompMsg is what a server gave for a template's variable.
type resCompMsg struct {
	key    string
	values []string
	err    error
}

// completeAt is Tab on an @ word: it completes from what is known, and
// asks the servers, in the background, for what is not: a server's
// listing, a template variable's values. Their answers complete again.
func (m *Model) completeAt(word string) tea.Cmd {
	rs := m.resCache()
	server, rest, hasColon := strings.Cut(word, ":")
	if hasColon && m.res != nil {
		if _, ok := rs.lists[server]; !ok {
			return m.askListing(server)
		}
		if cmd := m.askCompletions(server, rest); cmd != nil {
			return cmd
		}
	}
	m.complete()
	return nil
}

func (m *Model) askListing(server string) tea.Cmd {
	rs, rb := m.resCache(), m.res
	if rs.asking["list\x00"+server] {
		return nil
	}
	rs.asking["list\x00"+server] = true
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), resourceTimeout)
		defer cancel()
		l, err := rb.ListResources(ctx, server)
		return resListMsg{server: server, list: l, err: err}
	}
}

// askCompletions asks for the values of the template variable being
// typed, once per value, of a server that completes.
func (m *Model) askCompletions(server, typed string) tea.Cmd {
	rs, rb := m.resCache(), m.res
	l := rs.lists[server]
	if !l.Completions {
		return nil
	}
	for _, t := range l.Templates {
		tm, ok := matchTemplate(t.URITemplate, typed)
		if !ok || tm.name == "" {
			continue
		}
		key := compKey(server, t.URITemplate, tm)
		if _, known := rs.comps[key]; known || rs.asking[key] {
			continue
		}
		rs.asking[key] = true
		tmpl := t.URITemplate
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), resourceTimeout)
			defer cancel()
			vals, err := rb.CompleteResource(ctx, server, tmpl, tm.name, tm.value, tm.filled)
			return resCompMsg{key: key, values: vals, err: err}
		}
	}
	return nil
}

// handleResList keeps a listing and completes again with it.
func (m *Model) handleResList(msg resListMsg) tea.Cmd {
	rs := m.resCache()
	delete(rs.asking, "list\x00"+msg.server)
	if msg.err != nil {
		m.addError("@" + sanitize.Line(msg.server) + ": " + sanitizeText(msg.err.Error()))
		return nil
	}
	rs.lists[msg.server] = msg.list
	return m.recomplete()
}

// handleResComp keeps a variable's values and completes again with them.
func (m *Model) handleResComp(msg resCompMsg) tea.Cmd {
	rs := m.resCache()
	delete(rs.asking, msg.key)
	if msg.err != nil {
		rs.comps[msg.key] = nil // asked; the person types the value
		return nil
	}
	rs.comps[msg.key] = msg.values
	return m.recomplete()
}

// recomplete completes the @ word again, if the input still ends in one.
func (m *Model) recomplete() tea.Cmd {
	m.dirty = true
	if w, ok := atWord(m.input.value()); ok && m.modal == nil {
		return m.completeAt(w)
	}
	return nil
}

// atTyped reports whether the input ends in an @ word.
func (m *Model) atTyped() bool {
	_, ok := atWord(m.input.value())
	return ok
}

// completeAtKey is Tab on an @ word.
func (m *Model) completeAtKey() tea.Cmd {
	w, _ := atWord(m.input.value())
	return m.completeAt(w)
}

// completedSuffix is what follows a completion taken alone: a space,
// unless more is to be typed (a prompt argument's value after its "=", a
// server's name before its URI, a template's text before its variable).
func completedSuffix(c candidate) string {
	if strings.HasSuffix(c.text, "=") { // a prompt argument's name: its value next
		return ""
	}
	if strings.HasSuffix(c.text, ":") && strings.HasPrefix(c.help, "resources of ") || strings.HasPrefix(c.help, "template ") {
		return ""
	}
	return " "
}

// resourcesArgOptions complete /resources SERVER watch|unwatch.
func (m *Model) resourcesArgOptions(pos int) []candidate {
	switch pos {
	case 0:
		return plainCandidates(m.resServers())
	case 1:
		return []candidate{{"watch", "show a resource's updates"}, {"unwatch", "stop showing them"}}
	}
	return nil
}
