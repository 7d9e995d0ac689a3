package permissions

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// RuleSpec is an argument rule as written: an entry of the config's
// `rules` or the compact form of --allow and --deny.
type RuleSpec struct {
	// Tool is the tool the rule is about: a namespaced name (global rules),
	// the server's own tool name (a server's rules), or "*" for every tool.
	Tool string
	// Args maps an argument name ("*": every string argument, at any depth)
	// to a pattern: a string (a glob, or "re:" and a regular expression),
	// a float64 or a bool (matched exactly). No args: every call of Tool.
	Args map[string]any
	// Decision is "allow", "ask" or "deny".
	Decision string
	// Client, when set, is a glob on the name of the MCP client that
	// makes the call through latch serve: the rule is only about that
	// client's calls (rules_client.go).
	Client string
}

// Rule is a compiled argument rule. Build one with CompileRule.
type Rule struct {
	// Spec is the rule as written, for listing it.
	Spec RuleSpec
	// Server is "" for a global rule, whose Tool is a namespaced name or
	// "*"; else the server whose own rules hold it (Tool is that server's
	// own tool name, or "*").
	Server string
	// Decision is Allow, AskUser or Deny.
	Decision Decision
	// Origin names the rule where it was written, e.g.
	// `config /p/latch.json: permissions.rules[2]` or `--deny "…"`.
	Origin string

	args []argMatcher // sorted by name
}

// RuleError is a rule that cannot be compiled. Its message names the rule
// (Origin), then the field of the rule that is wrong.
type RuleError struct {
	Origin string // the rule, as Rule.Origin names it
	Field  string // "tool", "decision", "args", "args.NAME"
	Msg    string
}

func (e *RuleError) Error() string {
	return e.Origin + ": " + e.Field + ": " + e.Msg
}

// ParseRuleDecision reads the config spelling of a rule's decision.
func ParseRuleDecision(s string) (Decision, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return AskUser, nil
	case "deny":
		return Deny, nil
	}
	return Deny, fmt.Errorf("%q is not a decision (allow, ask, deny)", s)
}

// ruleDecisionName is the config spelling of a rule's decision.
func ruleDecisionName(d Decision) string {
	switch d {
	case Allow:
		return "allow"
	case AskUser:
		return "ask"
	}
	return "deny"
}

// CompileRule compiles spec, a rule of server's own rules (server "" for a
// global rule). home expands a pattern's leading "~"; origin names the rule
// in errors and verdicts. The returned error is a *RuleError.
func CompileRule(spec RuleSpec, server, origin, home string) (Rule, error) {
	fail := func(field, format string, args ...any) (Rule, error) {
		return Rule{}, &RuleError{Origin: origin, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	r := Rule{Spec: spec, Server: server, Origin: origin}
	switch {
	case spec.Tool == "":
		return fail("tool", "must not be empty (\"*\" is every tool)")
	case spec.Tool != "*" && strings.ContainsAny(spec.Tool, "*?[(), \t\n"):
		return fail("tool", "%s: a tool's exact name, or \"*\" for every tool", strconv.Quote(spec.Tool))
	}
	d, err := ParseRuleDecision(spec.Decision)
	if err != nil {
		return fail("decision", "%v", err)
	}
	r.Decision = d
	if err := checkClientGlob(spec.Client); err != nil {
		return fail("client", "%v", err)
	}
	for _, name := range slices.Sorted(maps.Keys(spec.Args)) {
		field := "args." + name
		if name == "" {
			return fail("args", "an argument name must not be empty")
		}
		m, err := compileMatcher(spec.Args[name], home)
		if err == nil && name == AnyArg && m.kind >= matchNumber {
			err = fmt.Errorf("\"*\" stands for every string argument: give a glob or re:")
		}
		if err != nil {
			return fail(field, "%v", err)
		}
		r.args = append(r.args, argMatcher{name: name, named: pathName(name), m: m})
	}
	return r, nil
}

// AnyArg as an argument name stands for every string argument, at any depth.
const AnyArg = "*"

// Compact returns the rule in the compact form of --allow and --deny,
// prefixed with its server (`fs: read_text_file(…)`) for a server's rule.
func (r Rule) Compact() string {
	s := FormatCompact(r.Spec) + clientSuffix(r.Spec.Client)
	if r.Server != "" {
		return r.Server + ": " + s
	}
	return s
}

// DecisionName is the config spelling of the rule's decision: allow, ask
// or deny.
func (r Rule) DecisionName() string { return ruleDecisionName(r.Decision) }

// covers reports whether r is about c's tool: its server's own name (a
// server's rule), a namespaced name that reads as c's tool and no other
// server's (see Gate.names), or "*".
func (r *Rule) covers(c Call, servers []string) bool {
	if r.Server != "" {
		return r.Server == c.Server && (r.Spec.Tool == "*" || r.Spec.Tool == c.Tool)
	}
	if r.Spec.Tool == "*" {
		return true
	}
	prefix := c.Server + NamespaceSep
	if c.Server == "" || !strings.HasPrefix(r.Spec.Tool, prefix) || !onlyReading(r.Spec.Tool, c.Server, servers) {
		return false
	}
	return r.Spec.Tool == prefix+c.Tool || r.Spec.Tool == c.Name
}

// matches reports whether every argument pattern of r matches c's
// arguments. An allow rule vouches for a value only when every reading of
// it matches (every element of a list, every string under "*"); a deny or
// ask rule fires when any does.
func (r *Rule) matches(v *callValues) bool {
	if !r.forClient(v.client) {
		return false
	}
	every := r.Decision == Allow
	for i := range r.args {
		if !r.args[i].matches(v, every) {
			return false
		}
	}
	return true
}
