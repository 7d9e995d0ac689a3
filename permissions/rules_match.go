package permissions

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// matchKind is what a rule's argument pattern is.
type matchKind uint8

const (
	// matchPath is a glob with a '/': matched segment by segment against
	// the lexically cleaned value; '*' and '?' stay within a segment, a
	// "**" segment spans any number of them (none included).
	matchPath matchKind = iota
	// matchGlob is a glob without '/': '*' matches any run of characters.
	matchGlob
	// matchRegexp is "re:…", matched against the whole value.
	matchRegexp
	// matchNumber and matchBool match a value exactly.
	matchNumber
	matchBool
)

// maxDoubleStars bounds the "**" segments of one pattern. Matching costs
// the same whatever their number (rules_glob.go); the bound only refuses
// patterns no one means.
const maxDoubleStars = 16

// matcher is one compiled argument pattern.
type matcher struct {
	kind matchKind
	segs []string // matchPath: the cleaned pattern's segments
	lit  string   // matchPath: the literal start every matching path has
	glob string   // matchGlob
	pre  string   // matchGlob, matchRegexp: the literal start of every match
	suf  string   // matchGlob, matchPath: the literal end of every match
	must string   // matchRegexp: a literal every match holds
	re   *regexp.Regexp
	num  float64
	b    bool
}

// argMatcher is a pattern for one argument name (or AnyArg).
type argMatcher struct {
	name string
	m    matcher
}

// compileMatcher compiles a pattern of a rule's args.
func compileMatcher(v any, home string) (matcher, error) {
	switch x := v.(type) {
	case string:
		if expr, ok := strings.CutPrefix(x, "re:"); ok {
			// expr must stand on its own, so that the anchors around it
			// cannot be undone by it ("a)|(.*" would match anything).
			alone, err := regexp.Compile(expr)
			if err != nil {
				return matcher{}, fmt.Errorf("re: %v", err)
			}
			re, err := regexp.Compile(`^(?:` + expr + `)$`)
			if err != nil {
				return matcher{}, fmt.Errorf("re: %q cannot be matched against the whole value: %v", expr, err)
			}
			// Every match of the anchored expression is a match of expr at
			// the start of the value: it begins with expr's literal prefix.
			pre, _ := alone.LiteralPrefix()
			must := mustHold(expr)
			if strings.Contains(pre, must) {
				must = "" // the start already holds it
			}
			return matcher{kind: matchRegexp, re: re, pre: pre, must: must}, nil
		}
		return compileGlob(x, home)
	case bool:
		return matcher{kind: matchBool, b: x}, nil
	}
	if f, ok := number(v); ok {
		return matcher{kind: matchNumber, num: f}, nil
	}
	return matcher{}, fmt.Errorf("expected a string (a glob, or re: and a regular expression), a number or a boolean, got %s", jsonKind(v))
}

// compileGlob compiles a glob. '\' is read as '/', a leading "~" or "~/"
// is home; a glob with a '/' is a path glob.
func compileGlob(g, home string) (matcher, error) {
	if g == "" {
		return matcher{}, fmt.Errorf("an empty pattern matches only an empty value; use \"*\" for any value")
	}
	g = strings.ReplaceAll(g, `\`, "/")
	switch {
	case g == "~" || strings.HasPrefix(g, "~/"):
		if home == "" {
			return matcher{}, fmt.Errorf("~ needs HOME, which is not set")
		}
		g = strings.ReplaceAll(home, `\`, "/") + g[1:]
	case strings.HasPrefix(g, "~"):
		return matcher{}, fmt.Errorf("%q: ~user is not expanded; write the folder out", g)
	}
	if !strings.Contains(g, "/") {
		m := matcher{kind: matchGlob, glob: g, pre: g}
		if i := strings.IndexAny(g, "*?"); i >= 0 {
			m.pre, m.suf = g[:i], g[strings.LastIndexAny(g, "*?")+1:]
		}
		return m, nil
	}
	stars := 0
	for seg := range strings.SplitSeq(g, "/") {
		switch {
		case seg == "..":
			return matcher{}, fmt.Errorf("%q: a path pattern is matched against cleaned paths, so it cannot hold \"..\"; write the folder it means", g)
		case seg == "**":
			stars++
		case strings.Contains(seg, "**"):
			return matcher{}, fmt.Errorf("%q: ** must be a whole path segment (a/**/b)", g)
		}
	}
	if stars > maxDoubleStars {
		return matcher{}, fmt.Errorf("%q: at most %d ** segments", g, maxDoubleStars)
	}
	clean := path.Clean(g)
	m := matcher{kind: matchPath, lit: clean}
	for seg := range strings.SplitSeq(clean, "/") {
		if seg == "**" && len(m.segs) > 0 && m.segs[len(m.segs)-1] == "**" {
			continue // a/**/**/b is a/**/b
		}
		m.segs = append(m.segs, seg)
	}
	if i := strings.IndexAny(clean, "*?"); i >= 0 {
		m.lit = clean[:max(strings.LastIndexByte(clean[:i], '/'), 0)]
	}
	// A last segment other than "**" ends every matching path with its
	// literal end.
	if last := m.segs[len(m.segs)-1]; last != "**" {
		m.suf = last[strings.LastIndexAny(last, "*?")+1:]
	}
	return m, nil
}

// number returns v as a float64 when it is a JSON number.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

// jsonKind names the JSON type of a decoded value, for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

// reading is what one string value of a call says: as given, and lexically
// cleaned ('.', '..' and '//' resolved, "~" and "~/" expanded). A value
// with a '\' has a second cleaned reading, with '\' as '/': the gate
// cannot know which one the server will act on.
type reading struct {
	raw   string
	clean []string // one or two
}

func newReading(s, home string) *reading {
	r := &reading{raw: s}
	r.add(cleanValue(s, home))
	if strings.Contains(s, `\`) {
		if alt := cleanValue(strings.ReplaceAll(s, `\`, "/"), home); alt != r.clean[0] {
			r.add(alt)
		}
	}
	return r
}

func (r *reading) add(clean string) {
	r.clean = append(r.clean, clean)
}

// cleanValue expands a leading "~" or "~/" to home and cleans the path
// lexically (path.Clean). "~user" is left as it is: the gate cannot know
// whose home that is.
func cleanValue(s, home string) string {
	if home != "" && (s == "~" || strings.HasPrefix(s, "~/")) {
		s = home + s[1:]
	}
	return cleanPath(s)
}

// callValues are a call's arguments as the rules read them; readings are
// made once per call.
type callValues struct {
	args     map[string]any
	home     string
	strs     []string // every string argument, at any depth
	strsDone bool
	// readings are made once per string: most calls have a few, which a
	// list finds faster than a map hashes them; past listedReadings, the
	// map finds them.
	readings []*reading
	byString map[string]*reading
}

// listedReadings is how many readings a call keeps in a list only.
const listedReadings = 16

func (v *callValues) reading(s string) *reading {
	if v.byString != nil {
		if r, ok := v.byString[s]; ok {
			return r
		}
	} else {
		for _, r := range v.readings {
			if r.raw == s {
				return r
			}
		}
	}
	r := newReading(s, v.home)
	v.readings = append(v.readings, r)
	switch {
	case v.byString != nil:
		v.byString[s] = r
	case len(v.readings) > listedReadings:
		v.byString = make(map[string]*reading, 2*len(v.readings))
		for _, x := range v.readings {
			v.byString[x.raw] = x
		}
	}
	return r
}

// strings returns every string argument of the call, at any depth.
func (v *callValues) strings() []string {
	if !v.strsDone {
		v.strsDone = true
		for _, a := range v.args {
			eachLeaf(a, func(l any) bool {
				if s, ok := l.(string); ok {
					v.strs = append(v.strs, s)
				}
				return true
			})
		}
	}
	return v.strs
}

// eachLeaf calls f with every scalar in x (x itself, the elements of a
// list, the values of an object, at any depth) until f returns false; it
// reports whether f never did.
func eachLeaf(x any, f func(any) bool) bool {
	switch t := x.(type) {
	case []any:
		for _, e := range t {
			if !eachLeaf(e, f) {
				return false
			}
		}
		return true
	case map[string]any:
		for _, e := range t {
			if !eachLeaf(e, f) {
				return false
			}
		}
		return true
	}
	return f(x)
}

// matches reports whether the call's argument a.name (every string
// argument, for AnyArg) matches: with every, each of its values must and
// there must be one; else one is enough.
func (a *argMatcher) matches(v *callValues, every bool) bool {
	if a.name == AnyArg {
		strs := v.strings()
		if every && len(strs) == 0 {
			return false
		}
		for _, s := range strs {
			if a.m.matchLeaf(v, s, every) != every {
				return !every
			}
		}
		return every
	}
	val, ok := v.args[a.name]
	if !ok {
		return false
	}
	seen, found := false, false
	all := eachLeaf(val, func(l any) bool {
		seen = true
		if a.m.matchLeaf(v, l, every) {
			found = true
			return every // go on only when every value must match
		}
		return !every
	})
	if every {
		return seen && all
	}
	return found
}

// matchLeaf reports whether one scalar of a call matches. A string is
// read as it is and cleaned (a path glob sees only the cleaned readings):
// with every, each reading must match, else one is enough.
func (m *matcher) matchLeaf(v *callValues, leaf any, every bool) bool {
	switch m.kind {
	case matchNumber:
		f, ok := number(leaf)
		return ok && f == m.num
	case matchBool:
		b, ok := leaf.(bool)
		return ok && b == m.b
	}
	s, ok := leaf.(string)
	if !ok {
		return false
	}
	if m.kind != matchPath && cleansToItself(s) {
		return m.matchString(s) // its one reading is itself
	}
	r := v.reading(s)
	if m.kind != matchPath && m.matchString(s) != every {
		return !every
	}
	for _, c := range r.clean {
		if m.kind != matchPath && c == s {
			continue // as it is, matched above
		}
		if m.matchClean(c) != every {
			return !every
		}
	}
	return every
}

// cleansToItself reports whether s has a single reading, itself: no '/'
// or '\' for cleaning to change, no "~" to expand, not empty (which
// cleans to ".").
func cleansToItself(s string) bool {
	if s == "" || s[0] == '~' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '\\' {
			return false
		}
	}
	return true
}

// matchString matches a plain glob or a regexp against s.
func (m *matcher) matchString(s string) bool {
	if m.kind == matchRegexp {
		return strings.HasPrefix(s, m.pre) && strings.Contains(s, m.must) && m.re.MatchString(s)
	}
	return strings.HasPrefix(s, m.pre) && strings.HasSuffix(s, m.suf) && wild(m.glob, s)
}

// matchClean matches one cleaned reading.
func (m *matcher) matchClean(clean string) bool {
	if m.kind != matchPath {
		return m.matchString(clean)
	}
	return strings.HasPrefix(clean, m.lit) && strings.HasSuffix(clean, m.suf) && matchSegs(m.segs, clean)
}
