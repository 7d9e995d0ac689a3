package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"latch/permissions"
	"latch/words"
)

// ruleKeys are the keys of one argument rule.
var ruleKeys = []string{"tool", "args", "decision", "client"}

// rules reads a "rules" list: permissions.rules (server "") or a server's
// own rules (server its name, scope its message scope). Every error names
// the file, the rule's index and its field:
// `config FILE: permissions.rules[2].args.path: …`.
func (l *loader) rules(scope, field, server string, raw json.RawMessage) []permissions.Rule {
	if !l.want(scope, field, raw, "array", "a list of rules ({\"tool\", \"args\", \"decision\"})") {
		return nil
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	var out []permissions.Rule
	for i, item := range items {
		at := fmt.Sprintf("%s[%d]", field, i)
		obj, ok := l.object(scope, at, item)
		if !ok {
			continue
		}
		l.unknownKeys(scope, at, obj, ruleKeys)
		spec, ok := l.ruleSpec(scope, at, obj)
		if !ok {
			continue
		}
		origin := strings.TrimSuffix(l.prefix(scope, at), ": ")
		r, err := permissions.CompileRule(spec, server, origin, l.getenv("HOME"))
		if re := (*permissions.RuleError)(nil); errors.As(err, &re) {
			l.errorf(scope, at+"."+re.Field, "%s", re.Msg)
			continue
		}
		if server != "" && strings.HasPrefix(spec.Tool, server+permissions.NamespaceSep) {
			l.warnf(scope, at+".tool", "%q: a server's rules name its own tools (%q), so this rule matches no call",
				spec.Tool, strings.TrimPrefix(spec.Tool, server+permissions.NamespaceSep))
		}
		out = append(out, r)
	}
	return out
}

// ruleSpec reads the fields of one rule, each checked for its type.
func (l *loader) ruleSpec(scope, at string, obj map[string]json.RawMessage) (permissions.RuleSpec, bool) {
	var spec permissions.RuleSpec
	ok := true
	for _, key := range []string{"tool", "decision"} {
		if obj[key] == nil {
			l.errorf(scope, at, "missing %q", key)
			ok = false
		}
	}
	spec.Tool, _ = l.str(scope, at+".tool", obj["tool"])
	spec.Decision, _ = l.str(scope, at+".decision", obj["decision"])
	if raw, set := obj["client"]; set {
		spec.Client = l.nonEmpty(scope, at+".client", raw)
	}
	if obj["args"] == nil {
		return spec, ok
	}
	args, good := l.object(scope, at+".args", obj["args"])
	if !good {
		return spec, false
	}
	spec.Args = make(map[string]any, len(args))
	for name, v := range args {
		if k := words.JSONKind(v); k == "object" || k == "array" || k == "null" {
			l.errorf(scope, at+".args."+name, "expected a string (a glob, or re: and a regular expression), a number or a boolean, got %s", k)
			ok = false
			continue
		}
		var x any
		_ = json.Unmarshal(v, &x) // already valid JSON
		spec.Args[name] = x
	}
	return spec, ok
}

// checkRuleReadings reports each global rule whose namespaced tool reads
// as tools of two or more servers, as checkAllowReadings does for
// permissions.allow: the gate would apply it to neither.
func (l *loader) checkRuleReadings(rules []permissions.Rule, servers []ServerConfig) {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	for _, r := range rules {
		if err := permissions.CheckEntry(r.Spec.Tool, names); err != nil {
			l.errs = append(l.errs, fmt.Errorf("%s.tool: %v", r.Origin, err))
		}
		if r.Spec.Tool != "*" && len(permissions.Readings(r.Spec.Tool, names)) == 0 {
			l.warns = append(l.warns, fmt.Sprintf("%s.tool: %q names no configured server's tool (server__tool), so this rule matches no call",
				r.Origin, r.Spec.Tool))
		}
	}
}
