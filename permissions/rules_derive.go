package permissions

import (
	"encoding/json"
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

// DeriveRules returns the allow rules `A` in the permission box can save
// for c, the narrowest first: every argument at its exact value, then
// one folder rule that holds every path-like argument (PathLike) in its
// own folder (source=~/src/proj/**, destination=~/src/proj/**). Each is a
// global rule naming c's tool, and each is checked to match c, so none
// is offered that would not allow the very call it came from.
//
// A folder rule never leaves a path-like argument free: it is offered
// only when each of them is a path whose folder can be written as a glob
// (or a list of paths in one such folder). And it never reaches beyond
// the call's folders: none is offered for a file at the root, in home
// itself, or in the current folder (the glob would be /**, ~/** or **),
// nor for a folder whose name a glob would read as a pattern ('*', '?').
// The exact rule is offered only when every argument is a string, a
// number or a boolean.
func DeriveRules(c Call, home string) []RuleSpec {
	tool := c.Server + NamespaceSep + c.Tool
	if strings.ContainsAny(tool, "*?[(), \t\n") || c.Server == "" {
		tool = c.Name
	}
	home = strings.ReplaceAll(home, `\`, "/")
	var out []RuleSpec
	if exact, ok := exactArgs(c.Args, home); ok {
		out = append(out, RuleSpec{Tool: tool, Args: exact, Decision: "allow"})
	}
	if folders, ok := folderArgs(c.Args, home); ok {
		out = append(out, RuleSpec{Tool: tool, Args: folders, Decision: "allow"})
	}
	return slices.DeleteFunc(out, func(spec RuleSpec) bool { return !derivedFits(spec, c, home) })
}

// folderArgs are a folder glob for each path-like argument of args, and
// whether every one has one (and there is one at all).
func folderArgs(args map[string]any, home string) (map[string]any, bool) {
	out := map[string]any{}
	for _, name := range slices.Sorted(maps.Keys(args)) {
		v := args[name]
		if !pathArgument(name, v) {
			continue
		}
		dir, ok := argFolder(v, home)
		if !ok || name == AnyArg {
			return nil, false
		}
		out[name] = dir + "/**"
	}
	return out, len(out) > 0
}

// argFolder is the folder of a path-like argument's value: of a path, or
// the one folder of every path in a list. Anything else (an object, a
// list of paths in two folders) has none a glob could hold.
func argFolder(v any, home string) (string, bool) {
	switch x := v.(type) {
	case string:
		return derivedFolder(x, home)
	case []any:
		dir := ""
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return "", false
			}
			d, ok := derivedFolder(s, home)
			if !ok || (dir != "" && d != dir) {
				return "", false
			}
			dir = d
		}
		return dir, dir != ""
	}
	return "", false
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
		strings.HasPrefix(dir, "~"), strings.ContainsAny(dir, "*?"),
		strings.IndexFunc(dir, func(r rune) bool { return r < 0x20 || r == 0x7f }) >= 0: // a text, not a folder
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
		case json.Number:
			if _, ok := number(x); !ok {
				return nil, false
			}
			out[name] = x // as the call wrote it: a float64 would round 2^53+1
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
