package permissions

import (
	"slices"
	"strconv"
	"strings"
)

// ruleList is the rules about one tool (or "*"), with an index of what
// their values must start or end with: a pattern's literal start (a path
// glob's folder, a glob's or a regular expression's first letters) or a
// glob's literal end. A rule is keyed on the longest of its patterns'; a
// call's string values are looked up by their starts and ends of the
// lengths the index holds, so a call is matched only against the rules
// one of its values could match. Rules with no such pattern (numbers,
// booleans, "*", no arguments) are tried on every call.
type ruleList struct {
	all    []int                  // every rule of the list, in the order given
	always []int                  // rules with no key: tried on every call
	byArg  map[string]*affixIndex // argument name (or AnyArg) → the rules keyed on it
}

// affixIndex finds rules by a literal start, end or middle of one
// argument's values.
type affixIndex struct {
	keys [4]map[string][]int // by keyKind
	lens [4][]int            // the lengths of the keys of each kind, ascending, once each
	mid  []int               // every rule keyed on a literal in the middle
}

// keyKind is where in a value a rule's key must be.
type keyKind uint8

const (
	keyStart  keyKind = iota // a literal start: a path glob's folder, a glob's or an expression's first letters
	keyEnd                   // a glob's literal end
	keyMiddle                // a literal a regular expression's every match holds
	keyValue                 // a number or a boolean, matched exactly (valueKey)
)

// maxMiddleScan bounds the length of a value whose every substring is
// looked up for middle keys: a longer one is a candidate of every rule
// keyed on a middle.
const maxMiddleScan = 512

// with returns l (made when nil) with rule i added.
func (l *ruleList) with(i int) *ruleList {
	if l == nil {
		l = &ruleList{}
	}
	l.all = append(l.all, i)
	return l
}

// index builds l's index over rules. Each rule is keyed on the rarest
// of its keys in the list (the longest of equally rare ones), so that
// rules sharing a folder but not a file name are told apart by the name.
func (l *ruleList) index(rules []Rule) {
	count := map[ruleKey]int{}
	for _, i := range l.all {
		for _, k := range ruleKeys(&rules[i]) {
			count[k]++
		}
	}
	for _, i := range l.all {
		var key ruleKey
		for _, k := range ruleKeys(&rules[i]) {
			if key.key == "" || k.better(key, count) {
				key = k
			}
		}
		if key.key == "" {
			l.always = append(l.always, i)
			continue
		}
		if l.byArg == nil {
			l.byArg = map[string]*affixIndex{}
		}
		ix := l.byArg[key.name]
		if ix == nil {
			ix = &affixIndex{keys: [4]map[string][]int{{}, {}, {}, {}}}
			l.byArg[key.name] = ix
		}
		ix.keys[key.kind][key.key] = append(ix.keys[key.kind][key.key], i)
		if lens := &ix.lens[key.kind]; !slices.Contains(*lens, len(key.key)) {
			*lens = append(*lens, len(key.key))
			slices.Sort(*lens)
		}
		if key.kind == keyMiddle {
			ix.mid = append(ix.mid, i)
		}
	}
}

// ruleKey is a literal start (or, with suffix, end) that a reading of a
// value of argument name must have for a rule to match.
type ruleKey struct {
	name string
	key  string
	kind keyKind
}

// better reports whether k is a better key than o: rarer in the list
// (count); of equally rare ones, a start or an end (fewer look-ups)
// before a middle, then the longer.
func (k ruleKey) better(o ruleKey, count map[ruleKey]int) bool {
	if count[k] != count[o] {
		return count[k] < count[o]
	}
	if km, om := k.kind == keyMiddle, o.kind == keyMiddle; km != om {
		return om
	}
	return len(k.key) > len(o.key)
}

// ruleKeys are r's keys: for each of its string patterns, its literal
// start (a path glob's folder) and its literal end, those not empty.
func ruleKeys(r *Rule) []ruleKey {
	var out []ruleKey
	for i := range r.args {
		a := &r.args[i]
		pre := a.m.pre
		switch a.m.kind {
		case matchPath:
			pre = pathStart(a.m.segs, a.m.lit)
		case matchNumber:
			out = append(out, ruleKey{name: a.name, key: "n" + a.m.dec, kind: keyValue})
			continue
		case matchBool:
			out = append(out, ruleKey{name: a.name, key: valueKey(a.m.b), kind: keyValue})
			continue
		}
		if pre != "" {
			out = append(out, ruleKey{name: a.name, key: pre, kind: keyStart})
		}
		if a.m.kind != matchRegexp && a.m.suf != "" {
			out = append(out, ruleKey{name: a.name, key: a.m.suf, kind: keyEnd})
		}
		if a.m.must != "" {
			out = append(out, ruleKey{name: a.name, key: a.m.must, kind: keyMiddle})
		}
	}
	return out
}

// candidates are the rules of l that could match the call's values v, in
// the order given: those tried on every call, and those
// whose key starts, ends or is in a reading of a value of their argument
// (or equals a number or boolean of it). When more than a quarter of l
// would be, it is all of l: sorting them would cost more than trying.
func (l *ruleList) candidates(v *callValues) []int {
	if l.byArg == nil {
		return l.all
	}
	c := candidateList{out: slices.Clip(l.always), limit: len(l.all) / 4}
	for name, ix := range l.byArg {
		if name == AnyArg {
			for _, l := range v.strings() {
				ix.findString(l.s, l.path, v, &c)
			}
			continue
		}
		if val, ok := v.args[name]; ok {
			eachLeaf(val, pathName(name), func(l any, named, _ bool) bool {
				ix.findLeaf(l, named, v, &c)
				return !c.full
			})
		}
	}
	if c.full || len(c.out) > c.limit {
		return l.all
	}
	slices.Sort(c.out)
	return slices.Compact(c.out)
}

// candidateList gathers candidates up to a limit, past which it is full.
type candidateList struct {
	out   []int
	limit int
	full  bool
}

func (c *candidateList) add(rules []int) {
	if c.full || len(c.out)+len(rules) > c.limit {
		c.full = true
		return
	}
	c.out = append(c.out, rules...)
}

// findLeaf adds the rules keyed on a scalar: on its readings, its value,
// or a value a lax validator reads it as (rules_coerce.go).
func (ix *affixIndex) findLeaf(x any, named bool, v *callValues, c *candidateList) {
	if s, ok := x.(string); ok {
		ix.findString(s, named, v, c)
	}
	if k := valueKey(x); k != "" {
		c.add(ix.keys[keyValue][k])
	}
	if b, ok := laxBool(x); ok {
		c.add(ix.keys[keyValue][valueKey(b)])
	}
	if d, ok := laxNumber(x); ok {
		c.add(ix.keys[keyValue]["n"+d])
	}
}

// findString adds the rules keyed on a reading of the string s (a path
// when named or when it looks like one). A word that cleans to itself is
// its one reading.
func (ix *affixIndex) findString(s string, named bool, v *callValues, c *candidateList) {
	if !named && !v.fold && cleansToItself(s) {
		ix.find(s, c)
		return
	}
	ix.findReadings(v.reading(s, named || looksLikePath(s)), c)
}

// findReadings adds the rules keyed on a start, an end or a middle of a
// reading of a string. A relative path with no base known could be in
// any folder: every rule is a candidate.
func (ix *affixIndex) findReadings(r *reading, c *candidateList) {
	if r.anywhere {
		c.full = true
		return
	}
	ix.find(r.raw, c)
	for _, clean := range r.clean {
		ix.find(clean, c)
	}
	for i := range r.abs {
		ix.find(r.abs[i].s, c)
	}
	for i := range r.rel {
		ix.find(r.rel[i].s, c)
	}
}

// find adds the rules keyed on a start, an end or a middle of s.
func (ix *affixIndex) find(s string, c *candidateList) {
	for _, n := range ix.lens[keyStart] {
		if n > len(s) {
			break
		}
		c.add(ix.keys[keyStart][s[:n]])
	}
	for _, n := range ix.lens[keyEnd] {
		if n > len(s) {
			break
		}
		c.add(ix.keys[keyEnd][s[len(s)-n:]])
	}
	if len(s) > maxMiddleScan {
		c.add(ix.mid)
		return
	}
	for _, n := range ix.lens[keyMiddle] {
		for p := 0; p+n <= len(s) && !c.full; p++ {
			c.add(ix.keys[keyMiddle][s[p:p+n]])
		}
	}
}

// pathStart is the literal start of every path a path glob of the
// segments segs matches: up to its first '*' or '?', or, when that is a
// "**" segment (which may match no segment at all), its folder lit.
func pathStart(segs []string, lit string) string {
	glob := strings.Join(segs, "/")
	i := strings.IndexAny(glob, "*?")
	if i < 0 {
		return glob
	}
	seg, _, _ := strings.Cut(glob[strings.LastIndexByte(glob[:i], '/')+1:], "/")
	if seg == "**" {
		return lit
	}
	return glob[:i]
}

// valueKey is how the index holds a number or a boolean, "" for anything
// else: numbers equal as numbers (0 and -0, 1 and 1.0) have one key, their
// canonical decimal form.
func valueKey(v any) string {
	if b, ok := v.(bool); ok {
		return "b" + strconv.FormatBool(b)
	}
	d, ok := exactNumber(v)
	if !ok {
		return ""
	}
	return "n" + d
}
