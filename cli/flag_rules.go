package cli

import (
	"fmt"
	"strings"

	"latch/permissions"
)

// flagRules reads --allow and --deny against the configured servers
// (names): an --allow NAME is an allow-list entry, matched exactly; an
// --allow TOOL(NAME=VALUE, …) an allow rule; a --deny a deny rule (for all
// the tool's calls when it has no arguments). The rules come --deny first.
func flagRules(allow, deny, names []string, home string) (entries []string, rules []permissions.Rule, err error) {
	for _, d := range deny {
		r, err := flagRule("--deny", d, names, home)
		if err != nil {
			return nil, nil, err
		}
		rules = append(rules, r)
	}
	for _, a := range allow {
		if strings.Contains(a, "(") {
			r, err := flagRule("--allow", a, names, home)
			if err != nil {
				return nil, nil, err
			}
			rules = append(rules, r)
			continue
		}
		if strings.ContainsAny(a, "*?[") {
			return nil, nil, fmt.Errorf("--allow %q: matching is exact; list each tool", a)
		}
		if err := permissions.CheckEntry(a, names); err != nil {
			return nil, nil, fmt.Errorf("--allow: %v", err)
		}
		if err := permissions.CheckKindEntry(a, names); err != nil {
			return nil, nil, fmt.Errorf("--allow: %v", err)
		}
		entries = append(entries, a)
	}
	return entries, rules, nil
}

// flagRule compiles one --allow or --deny rule; its errors name it.
func flagRule(flag, text string, names []string, home string) (permissions.Rule, error) {
	r, err := permissions.FlagRule(flag, text, home)
	if err != nil {
		return r, err
	}
	if r.Spec.Tool != "*" {
		if err := permissions.CheckEntry(r.Spec.Tool, names); err != nil {
			return permissions.Rule{}, fmt.Errorf("%s: tool: %v", r.Origin, err)
		}
	}
	return r, nil
}
