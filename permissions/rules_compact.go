package permissions

import (
	"bytes"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The compact form of a rule, as --allow and --deny take it:
//
//	TOOL(NAME=VALUE, NAME=VALUE)
//
// A VALUE is bare (spaces around it dropped) or a JSON string. A bare
// true or false is a boolean, a bare JSON number a number, anything else a
// pattern (a glob, or re: and a regular expression). A bare value holds no
// ',' and no '"'; write any other value as a JSON string, with JSON's
// escapes: path="~/a,b/**", command="re:echo \"hi\"". Parentheses need no
// escape: the arguments run from the first '(' to the last ')'.

// jsonNumber is the syntax of a JSON number.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// ParseCompact reads a rule in the compact form, with the given decision
// ("allow", "ask" or "deny"). origin names the rule in errors (a
// *RuleError). Compile the result with CompileRule.
func ParseCompact(s, decision, origin string) (RuleSpec, error) {
	fail := func(msg string) (RuleSpec, error) {
		return RuleSpec{}, &RuleError{Origin: origin, Field: "args", Msg: msg}
	}
	if !utf8.ValidString(s) {
		return fail("not valid UTF-8")
	}
	open := strings.IndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return fail("expected TOOL(NAME=VALUE, …)")
	}
	spec := RuleSpec{Tool: strings.TrimSpace(s[:open]), Args: map[string]any{}, Decision: decision}
	rest := s[open+1 : len(s)-1]
	if strings.TrimSpace(rest) == "" {
		return fail("no arguments in the parentheses: name the tool without them for all its calls")
	}
	for {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 {
			return fail("expected NAME=VALUE, got " + strconv.Quote(strings.TrimSpace(rest)))
		}
		name := strings.TrimSpace(rest[:eq])
		switch {
		case name == "" || strings.ContainsAny(name, `,"()`):
			return fail("expected NAME=VALUE, got " + strconv.Quote(strings.TrimSpace(rest[:eq+1])))
		case spec.Args[name] != nil:
			return fail("argument " + strconv.Quote(name) + " is given twice")
		}
		val, after, err := compactValue(rest[eq+1:])
		if err != "" {
			return fail("argument " + strconv.Quote(name) + ": " + err)
		}
		spec.Args[name] = val
		if after == "" {
			return spec, nil
		}
		rest = after
	}
}

// compactValue reads one value and the ',' after it; after is what
// follows the ',' ("" at the end), err says what is wrong.
func compactValue(s string) (val any, after, err string) {
	t := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(t, `"`) {
		end := 1
		for end < len(t) && t[end] != '"' {
			if t[end] == '\\' {
				end++
			}
			end++
		}
		if end >= len(t) {
			return nil, "", "a quoted value has no closing \""
		}
		var str string
		if json.Unmarshal([]byte(t[:end+1]), &str) != nil {
			return nil, "", "not a JSON string: " + t[:end+1]
		}
		rest := strings.TrimLeft(t[end+1:], " \t")
		switch {
		case rest == "":
			return str, "", ""
		case rest[0] != ',':
			return nil, "", "expected ',' after the quoted value"
		}
		after, err = nonEmptyAfter(rest[1:])
		return str, after, err
	}
	raw, rest, more := strings.Cut(t, ",")
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return nil, "", "missing value (\"\" for an empty one)"
	case strings.Contains(raw, `"`):
		return nil, "", "a value with a '\"' is written as a JSON string"
	}
	val = bareValue(raw)
	if !more {
		return val, "", ""
	}
	after, err = nonEmptyAfter(rest)
	return val, after, err
}

// nonEmptyAfter is what follows a ',', which must be another argument.
func nonEmptyAfter(rest string) (string, string) {
	if strings.TrimSpace(rest) == "" {
		return "", "a ',' with no argument after it"
	}
	return rest, ""
}

// bareValue reads a bare value: a boolean, a number or a pattern.
func bareValue(raw string) any {
	switch {
	case raw == "true":
		return true
	case raw == "false":
		return false
	case jsonNumber.MatchString(raw):
		if f, err := strconv.ParseFloat(raw, 64); err == nil {
			return f
		}
	}
	return raw
}

// FormatCompact writes spec in the compact form; ParseCompact reads it
// back. Arguments are in name order.
func FormatCompact(spec RuleSpec) string {
	var b strings.Builder
	b.WriteString(spec.Tool)
	if len(spec.Args) == 0 {
		return b.String()
	}
	b.WriteByte('(')
	for i, name := range slices.Sorted(maps.Keys(spec.Args)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name + "=" + formatValue(spec.Args[name]))
	}
	b.WriteByte(')')
	return b.String()
}

// formatValue writes one value so that compactValue reads it back.
func formatValue(v any) string {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x)
	case string:
		if x != "" && strings.TrimSpace(x) == x && !strings.ContainsAny(x, `,"`) && utf8.ValidString(x) {
			if _, isStr := bareValue(x).(string); isStr {
				return x
			}
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(x)
		return strings.TrimSuffix(buf.String(), "\n")
	}
	if f, ok := number(v); ok {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return "null"
}

// FlagRule compiles the value of --allow or --deny, or of the chat's
// /allow or /deny (flag is one of those): a rule in the compact form, or a
// tool's name alone for all its calls. Its Origin is the flag and the
// value, `--deny "…"`.
func FlagRule(flag, text, home string) (Rule, error) {
	decision := strings.TrimLeft(flag, "-/")
	origin := flag + " " + strconv.Quote(text)
	if decision != "allow" && decision != "deny" {
		return Rule{}, &RuleError{Origin: origin, Field: "decision", Msg: "only --allow, --deny, /allow and /deny give rules"}
	}
	spec := RuleSpec{Tool: strings.TrimSpace(text), Decision: decision}
	if strings.Contains(text, "(") {
		var err error
		if spec, err = ParseCompact(text, decision, origin); err != nil {
			return Rule{}, err
		}
	}
	return CompileRule(spec, "", origin, home)
}

// FlagText is how the flag or chat command that gave r would give it
// again: `--deny *(*=~/.ssh/**)`, `/allow fs__read_text_file(path=~/src/**)`
// (FlagRule reads it back), or "" for a rule of the config.
func (r Rule) FlagText() string {
	if r.Server != "" {
		return ""
	}
	for _, flag := range [2]string{"--" + r.DecisionName(), "/" + r.DecisionName()} {
		if strings.HasPrefix(r.Origin, flag+" ") {
			return flag + " " + FormatCompact(r.Spec)
		}
	}
	return ""
}

// AddRule adds an argument rule for the rest of the session (/allow or
// /deny in the chat). Only the person at the keyboard gets here.
func (g *Gate) AddRule(r Rule) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.rules = newRuleSet(append(slices.Clone(g.rules.rules), r), g.rules.home, g.rules.fold)
}
