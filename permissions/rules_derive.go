package permissions

import (
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxDerivedRule bounds the compact form of a rule derived from a call:
// a longer one (a file's whole content as an exact value) is not offered.
const maxDerivedRule = 400

// maxFolderRules bounds how many folder rules one call offers.
const maxFolderRules = 3

// DeriveRules returns the allow rules `A` in the permission box can save
// for c, narrowest-to-use first: for each path argument (a string with a
// '/'), its folder as a glob (path=~/src/proj/**); then every argument
// at its exact value. Each is a global rule naming c's tool, and each is
// checked to match c, so none is offered that would not allow the very
// call it came from.
//
// A folder rule never reaches beyond the call's folder: none is offered
// for a file at the root, in home itself, or in the current folder (the
// glob would be /**, ~/** or **), nor for a folder whose name a glob
// would read as a pattern ('*', '?'). The exact rule is offered only when
// every argument is a string, a number or a boolean.
func DeriveRules(c Call, home string) []RuleSpec {
	tool := c.Server + NamespaceSep + c.Tool
	if strings.ContainsAny(tool, "*?[(), \t\n") || c.Server == "" {
		tool = c.Name
	}
	home = strings.ReplaceAll(home, `\`, "/")
	var out []RuleSpec
	for _, name := range slices.Sorted(maps.Keys(c.Args)) {
		s, ok := c.Args[name].(string)
		if !ok || len(out) == maxFolderRules {
			continue
		}
		if dir, ok := derivedFolder(s, home); ok {
			out = append(out, RuleSpec{Tool: tool, Args: map[string]any{name: dir + "/**"}, Decision: "allow"})
		}
	}
	if exact, ok := exactArgs(c.Args, home); ok {
		out = append(out, RuleSpec{Tool: tool, Args: exact, Decision: "allow"})
	}
	return slices.DeleteFunc(out, func(spec RuleSpec) bool { return !derivedFits(spec, c, home) })
}

// derivedFolder is the folder of a path value, as a glob writes it ("~"
// for home), and whether a folder rule may be made of it.
func derivedFolder(s, home string) (string, bool) {
	if !strings.Contains(s, "/") || strings.Contains(s, `\`) {
		return "", false
	}
	dir := path.Dir(cleanValue(s, home))
	switch {
	case dir == "/" || dir == "." || dir == "~" || (home != "" && dir == path.Clean(home)),
		strings.HasPrefix(dir, "~"), strings.ContainsAny(dir, "*?"):
		return "", false
	}
	return atHome(dir, home), true
}

// atHome writes a folder under home with "~".
func atHome(p, home string) string {
	if h := path.Clean(home); home != "" && h != "/" && strings.HasPrefix(p, h+"/") {
		return "~" + p[len(h):]
	}
	return p
}

// exactArgs are patterns for each argument at exactly its value, and
// whether every argument has one.
func exactArgs(args map[string]any, home string) (map[string]any, bool) {
	if len(args) == 0 {
		return nil, false
	}
	out := make(map[string]any, len(args))
	for name, v := range args {
		if name == AnyArg {
			return nil, false
		}
		switch x := v.(type) {
		case bool:
			out[name] = x
		case string:
			out[name] = exactPattern(x, home)
		default:
			f, ok := number(v)
			if !ok {
				return nil, false
			}
			out[name] = f
		}
	}
	return out, true
}

// exactPattern is a pattern for exactly the string s: a path as it cleans
// (what a path glob is matched against), a plain word as it is, anything
// a glob would read otherwise as a regular expression of its letters.
func exactPattern(s, home string) string {
	plain := s != "" && utf8.ValidString(s) && !strings.ContainsAny(s, `*?\`) && !strings.HasPrefix(s, "re:")
	switch {
	case plain && strings.Contains(s, "/") && (!strings.HasPrefix(s, "~") || strings.HasPrefix(s, "~/")):
		clean := atHome(cleanValue(s, home), home)
		if !strings.Contains(clean, "/") {
			clean = "./" + clean // still a path glob: matched as it cleans
		}
		return clean
	case plain && !strings.HasPrefix(s, "~"):
		return s
	}
	return "re:" + regexp.QuoteMeta(s)
}

// derivedFits reports whether spec compiles, stays short enough to show
// whole, and allows c on its own.
func derivedFits(spec RuleSpec, c Call, home string) bool {
	if len(FormatCompact(spec)) > maxDerivedRule {
		return false
	}
	r, err := CompileRule(spec, "", "derived", home)
	if err != nil {
		return false
	}
	servers := []string{c.Server}
	return r.covers(c, servers) && r.matches(newCallValues(c, nfc(strings.ReplaceAll(home, `\`, "/")), false))
}
