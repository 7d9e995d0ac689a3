package permissions

import (
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// PathReading is how the argument rules read one string of a call as a
// path, for `latch policy check` to show: where the server may open it.
type PathReading struct {
	// Where names the string: its argument, then the keys and indexes
	// below it (`files.notes` `paths[1]`); an object's key is shown with
	// "(key)" after it.
	Where string
	// Value is the string as the call gave it.
	Value string
	// Reads are the absolute paths a rooted glob is matched against, in
	// NFC (and case-folded where the gate folds case).
	Reads []PathRead
	// Anywhere says the path is relative and no base is known: it never
	// matches an allow rule, and matches a deny or ask rule whose folder it
	// could fall in.
	Anywhere bool
	// Doubtful says the path holds an invisible character or a slash
	// look-alike: it never matches an allow rule.
	Doubtful bool
}

// PathRead is one absolute path a value may be read as.
type PathRead struct {
	Path string // cleaned, '/' as separator
	Base string // the base a relative value was resolved against; "" for an absolute one
}

// maxPathReadings bounds the readings PathReadings returns.
const maxPathReadings = 100

// PathReadings are the strings of c's arguments that the rules read as
// paths, in a stable order (arguments by name, object keys sorted), with
// how they read; at most maxPathReadings, and whether there were more.
func (g *Gate) PathReadings(c Call) ([]PathReading, bool) {
	g.mu.RLock()
	home, fold := g.rules.home, g.rules.fold
	g.mu.RUnlock()
	v := newCallValues(c, home, fold)
	var out []PathReading
	more := false
	add := func(where, s string, named bool) {
		if !named && !looksLikePath(s) {
			return
		}
		if len(out) == maxPathReadings {
			more = true
			return
		}
		r := v.reading(s, true)
		pr := PathReading{Where: where, Value: s, Anywhere: r.anywhere, Doubtful: r.doubt}
		for _, cl := range r.clean {
			if absolute(cl) {
				pr.Reads = appendRead(pr.Reads, PathRead{Path: cl}, fold)
				continue
			}
			for _, b := range v.bases {
				pr.Reads = appendRead(pr.Reads, PathRead{Path: path.Join(nfc(b), cl), Base: b}, fold)
			}
		}
		out = append(out, pr)
	}
	for _, name := range slices.Sorted(maps.Keys(c.Args)) {
		add(name+" (key)", name, false)
		walkStrings(c.Args[name], name, pathName(name), add)
	}
	return out, more
}

// appendRead adds p to reads unless a read of the same path is there.
func appendRead(reads []PathRead, p PathRead, fold bool) []PathRead {
	if fold {
		p.Path = foldCase(p.Path)
	}
	if slices.ContainsFunc(reads, func(r PathRead) bool { return r.Path == p.Path }) {
		return reads
	}
	return append(reads, p)
}

// walkStrings calls f with every string in x, where names it, and named
// says it is under a name that holds paths.
func walkStrings(x any, where string, named bool, f func(where, s string, named bool)) {
	switch t := x.(type) {
	case string:
		f(where, t, named)
	case []any:
		for i, e := range t {
			walkStrings(e, where+"["+strconv.Itoa(i)+"]", named, f)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			f(where+"."+k+" (key)", k, false)
			walkStrings(t[k], where+"."+k, pathName(k), f)
		}
	}
}

// String is the reading as `latch policy check` shows it, with home
// written "~".
func (p PathReading) String(home string) string {
	short := func(s string) string {
		if home != "" && (s == home || strings.HasPrefix(s, strings.TrimSuffix(home, "/")+"/")) {
			return "~" + s[len(strings.TrimSuffix(home, "/")):]
		}
		return s
	}
	var b strings.Builder
	b.WriteString(p.Where + ": " + p.Value)
	var reads []string
	for _, r := range p.Reads {
		if r.Base == "" {
			reads = append(reads, short(r.Path))
		} else {
			reads = append(reads, short(r.Path)+" (base "+short(r.Base)+")")
		}
	}
	if len(reads) > 0 {
		b.WriteString(" → " + strings.Join(reads, ", "))
	}
	if p.Anywhere {
		b.WriteString(" (relative, no base known: never allowed; denied where it could fall in a denied folder)")
	}
	if p.Doubtful {
		b.WriteString(" (an invisible character or a look-alike slash: never allowed)")
	}
	return b.String()
}
