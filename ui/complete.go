package ui

import (
	"strings"

	"latch/permissions"
	"latch/session"
)

// candidate is one completion: the whole input it would make, and a hint.
type candidate struct{ text, help string }

// serverCommands take a server name as their (first) argument.
var serverCommands = map[string]bool{"connect": true, "close": true, "token": true, "login": true, "logout": true, "tools": true, "logs": true, "mode": true}

// allCandidates lists the completions of the input v: command names,
// then their arguments (server names, modes, model and theme names), a
// server's prompts and their arguments, @SERVER:URI. The menu offers them
// through candidates.
func (m *Model) allCandidates(v string) []candidate {
	if w, ok := atWord(v); ok {
		return m.atCandidates(v, w) // @SERVER:URI (resources_complete.go)
	}
	if !strings.HasPrefix(v, "/") || strings.Contains(v, "\n") {
		return nil
	}
	cmd, arg, hasArg := strings.Cut(v, " ")
	if !hasArg {
		return append(commandCandidates(v), m.promptCandidates(v)...)
	}
	if strings.Contains(cmd, ":") {
		return m.promptArgCandidates(v) // a server's prompt (promptcomplete.go)
	}
	pos, prefix := argAt(arg)
	opts := m.argOptions(strings.TrimPrefix(cmd, "/"), pos)
	return completing(strings.TrimSuffix(v, prefix), prefix, opts)
}

// commandCandidates are the commands whose name starts with v ("/c").
func commandCandidates(v string) []candidate {
	var out []candidate
	for _, c := range commands {
		if strings.HasPrefix("/"+c.name, v) {
			out = append(out, candidate{"/" + c.name, c.help})
		}
	}
	return out
}

// argAt says which argument the end of arg is in (0: the first) and what
// of it is typed: after a space, a new one with nothing typed yet.
func argAt(arg string) (pos int, prefix string) {
	words := strings.Fields(arg)
	if strings.HasSuffix(arg, " ") || len(words) == 0 {
		words = append(words, "")
	}
	return len(words) - 1, words[len(words)-1]
}

// completing turns the options that start with prefix into whole inputs,
// base (the input before prefix) followed by the option.
func completing(base, prefix string, opts []candidate) []candidate {
	var out []candidate
	for _, o := range opts {
		if strings.HasPrefix(o.text, prefix) {
			out = append(out, candidate{base + o.text, o.help})
		}
	}
	return out
}

// argOptions lists what may go in argument pos of command name.
func (m *Model) argOptions(name string, pos int) []candidate {
	switch {
	case name == "mode":
		return m.modeOptions(pos)
	case name == "logs" && pos == 1:
		return plainCandidates(session.LogLevels)
	case name == "resources":
		return m.resourcesArgOptions(pos)
	case name == "roots" && pos == 0:
		return []candidate{{"add", "add a directory for the session"}, {"remove", "remove one"}}
	case pos != 0:
		return nil // every other command completes its first argument only
	case serverCommands[name]:
		return m.serverOptions(name == "connect" || name == "close")
	case name == "model":
		return plainCandidates(m.modelNames)
	case name == "theme":
		return plainCandidates(m.themeNames())
	case name == "approve" || name == "reject":
		return m.approvalOptions()
	case name == "allow" || name == "revoke" || name == "deny":
		return m.toolOptions()
	case name == "context":
		return []candidate{{"4096", ""}, {"8192", ""}, {"16384", ""}, {"32768", ""}, {"default", "drop the session's setting"}}
	}
	return nil
}

// modeOptions complete /mode MODE and /mode SERVER MODE.
func (m *Model) modeOptions(pos int) []candidate {
	var opts []candidate
	switch pos {
	case 0:
		for _, md := range permissions.Modes() {
			opts = append(opts, candidate{md, "mode for every server"})
		}
		for _, n := range m.srv.ServerNames() {
			opts = append(opts, candidate{n, "set this server's mode"})
		}
	case 1:
		opts = plainCandidates(permissions.Modes())
	}
	return opts
}

// serverOptions are the servers, with their state; all when allowed.
func (m *Model) serverOptions(allowAll bool) []candidate {
	var opts []candidate
	for _, n := range m.srv.ServerNames() {
		opts = append(opts, candidate{n, m.servers[n].summary})
	}
	if allowAll {
		opts = append(opts, candidate{"all", "every server"})
	}
	return opts
}

// approvalOptions are the parked calls' ids, with their tools.
func (m *Model) approvalOptions() []candidate {
	var opts []candidate
	for _, ap := range m.asks.Approvals() {
		opts = append(opts, candidate{ap.ID, ap.Name})
	}
	return opts
}

// toolOptions are the connected servers' tools.
func (m *Model) toolOptions() []candidate {
	tools, err := m.srv.Tools("")
	if err != nil {
		return nil
	}
	var opts []candidate
	for _, t := range tools {
		opts = append(opts, candidate{t.Name, t.Description})
	}
	return opts
}

// plainCandidates are names without a hint.
func plainCandidates(names []string) []candidate {
	var opts []candidate
	for _, n := range names {
		opts = append(opts, candidate{n, ""})
	}
	return opts
}
