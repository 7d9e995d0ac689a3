package permissions

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
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
	dec  string // matchNumber: the number's canonical decimal form (exactNumber)
	b    bool
	// rooted: a matchPath glob anchored at a root ("/…", "~/…", "C:/…"),
	// matched against the absolute readings of a value; else against
	// its relative ones.
	rooted bool
}

// argMatcher is a pattern for one argument name (or AnyArg).
type argMatcher struct {
	name  string
	named bool // the argument holds paths by its name (pathName)
	m     matcher
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
	if d, ok := exactNumber(v); ok {
		return matcher{kind: matchNumber, dec: d}, nil
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
	g = nfc(g)
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
	m := matcher{kind: matchPath, lit: clean, rooted: absolute(clean + "/")}
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
// cleaned ('.', '..' and '//' resolved, "~" and "~/" expanded, in NFC). A
// value with a '\' has a second cleaned reading, with '\' as '/': the gate
// cannot know which one the server will act on. A path also has its
// unfolded readings (rules_unicode.go), and the forms a path glob sees:
// absolute, or resolved against the call's bases (rules_bases.go).
type reading struct {
	raw      string
	path     bool       // names a file, by its argument's name or its look
	doubt    bool       // a path with an invisible character or a slash look-alike
	anywhere bool       // a relative path, and no base known
	clean    []string   // one or more, each once
	abs, rel []pathForm // what a rooted path glob sees, and what another one does
}

func newReading(s string, isPath bool, v *callValues) *reading {
	// Most values are ASCII: one look says so, and spares the Unicode
	// steps their own (a long value is read once, not three times).
	ascii := isASCII(s)
	r := &reading{raw: s, path: isPath, doubt: isPath && !ascii && doubtful(s)}
	n := s
	if !ascii {
		n = nfc(s)
	}
	r.addClean(n, v.home)
	if isPath {
		if !ascii && !isASCII(n) {
			if u := unfolded(n); u != n {
				r.addClean(u, v.home)
			}
		}
		if p, ok := fileURIPath(n); ok {
			r.addClean(p, v.home)
		}
	}
	r.addPathForms(v.bases, isPath, v.fold)
	return r
}

// addClean adds the cleaned readings of s: with '\' kept, and as '/'.
func (r *reading) addClean(s, home string) {
	r.addOnce(cleanValue(s, home))
	if strings.Contains(s, `\`) {
		r.addOnce(cleanValue(strings.ReplaceAll(s, `\`, "/"), home))
	}
}

func (r *reading) addOnce(clean string) {
	for _, c := range r.clean {
		if c == clean {
			return
		}
	}
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
	home     string   // NFC, '/' as separator
	bases    []string // Call.Bases: none known when empty
	fold     bool     // paths compare case-folded
	client   CallClient
	strs     []leafString
	strsDone bool
	// readings are made once per string: most calls have a few, which a
	// list finds faster than a map hashes them; past listedReadings, the
	// map finds them.
	readings []*reading
	byString map[leafString]*reading
}

// newCallValues are c's arguments as the rules of rs read them.
func newCallValues(c Call, home string, fold bool) *callValues {
	return &callValues{args: c.Args, home: home, bases: c.Bases, fold: fold, client: c.Client}
}

// leafString is a string of a call's arguments and how it is read: as a
// path or a word, a value or an object's key.
type leafString struct {
	s    string
	path bool
	key  bool
}

// listedReadings is how many readings a call keeps in a list only.
const listedReadings = 16

func (v *callValues) reading(s string, isPath bool) *reading {
	k := leafString{s: s, path: isPath}
	if v.byString != nil {
		if r, ok := v.byString[k]; ok {
			return r
		}
	} else {
		for _, r := range v.readings {
			if r.raw == s && r.path == isPath {
				return r
			}
		}
	}
	r := newReading(s, isPath, v)
	v.readings = append(v.readings, r)
	switch {
	case v.byString != nil:
		v.byString[k] = r
	case len(v.readings) > listedReadings:
		v.byString = make(map[leafString]*reading, 2*len(v.readings))
		for _, x := range v.readings {
			v.byString[leafString{s: x.raw, path: x.path}] = x
		}
	}
	return r
}

// strings returns every string of the call's arguments, at any depth:
// the values, and the keys of objects (the arguments' names included).
func (v *callValues) strings() []leafString {
	if !v.strsDone {
		v.strsDone = true
		eachLeaf(map[string]any(v.args), false, func(l any, named, key bool) bool {
			if s, ok := l.(string); ok {
				v.strs = append(v.strs, leafString{s: s, path: named || looksLikePath(s), key: key})
			}
			return true
		})
	}
	return v.strs
}

// eachLeaf calls f with every scalar in x (x itself, the elements of a
// list, the keys and values of an object, at any depth) until f returns
// false; it reports whether f never did. named says the scalar is a value
// under a name that holds paths (pathName; named says whether x is): a
// string there is a path whatever it looks like. key says it is an
// object's key.
func eachLeaf(x any, named bool, f func(leaf any, named, key bool) bool) bool {
	switch t := x.(type) {
	case []any:
		for _, e := range t {
			if !eachLeaf(e, named, f) {
				return false
			}
		}
		return true
	case map[string]any:
		for k, e := range t {
			if !f(k, false, true) || !eachLeaf(e, pathName(k), f) {
				return false
			}
		}
		return true
	}
	return f(x, named, false)
}

// matches reports whether the call's argument a.name (every string
// argument, for AnyArg) matches: with every, each of its values must and
// there must be one; else one is enough. An object's key that is a word
// is a name, not a value: an allow rule does not ask it to match.
func (a *argMatcher) matches(v *callValues, every bool) bool {
	if a.name == AnyArg {
		seen := false
		for _, l := range v.strings() {
			if every && l.key && !l.path {
				continue
			}
			seen = true
			if a.m.matchLeaf(v, l.s, l.path, every) != every {
				return !every
			}
		}
		return every && seen
	}
	val, ok := v.args[a.name]
	if !ok {
		return false
	}
	seen, found := false, false
	all := eachLeaf(val, a.named, func(l any, named, key bool) bool {
		if every && key && !looksLikePath(l.(string)) {
			return true
		}
		seen = true
		if a.m.matchLeaf(v, l, named, every) {
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
// read as it is and cleaned (a path glob sees only the cleaned readings,
// resolved when relative): with every, each reading must match, else one
// is enough. It is a path when named (by its argument) or when it looks
// like one. A number or a boolean matches exactly; with every, that is
// all, else also a value a lax validator reads as it (rules_coerce.go).
func (m *matcher) matchLeaf(v *callValues, leaf any, named, every bool) bool {
	if m.kind >= matchNumber {
		return m.matchValue(leaf, every)
	}
	s, ok := leaf.(string)
	if !ok {
		return false
	}
	if cleansToItself(s) && !named {
		if m.kind != matchPath {
			return m.matchString(s) // its one reading is itself
		}
		if m.rooted {
			return false // a word, no path from a root
		}
	}
	r := v.reading(s, named || looksLikePath(s))
	if m.kind == matchPath {
		return m.matchPath(r, every)
	}
	if every && r.doubt {
		return false
	}
	if m.matchString(s) != every {
		return !every
	}
	for _, c := range r.clean {
		if c != s && m.matchString(c) != every {
			return !every
		}
	}
	return every
}

// matchValue matches a number or a boolean pattern: exactly, and with
// every that is all; else also a value a lax validator reads as it.
func (m *matcher) matchValue(leaf any, every bool) bool {
	if m.kind == matchNumber {
		if d, ok := exactNumber(leaf); ok || every {
			return ok && d == m.dec
		}
		d, ok := laxNumber(leaf)
		return ok && d == m.dec
	}
	if b, ok := leaf.(bool); ok || every {
		return ok && b == m.b
	}
	b, ok := laxBool(leaf)
	return ok && b == m.b
}

// cleansToItself reports whether s has a single reading, itself: no '/'
// or '\' for cleaning to change, no "~" to expand, not empty (which
// cleans to "."), nothing but ASCII (which NFC could change).
func cleansToItself(s string) bool {
	if s == "" || s[0] == '~' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '\\' || s[i] >= utf8.RuneSelf {
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
