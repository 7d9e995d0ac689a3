package permissions

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// propertyCases is how many random (rules, call) cases each property runs.
const propertyCases = 100_000

// rulePools are small, so that random rules and calls often meet.
var (
	ruleTools    = []string{"*", "read", "write", "fs__read", "fs__write", "mem__read", "fs__*"}
	ruleArgNames = []string{"path", "*", "n", "flag", "paths"}
	rulePatterns = []any{"/p/**", "/p/*", "/p/a", "~/.ssh/**", "*.txt", "re:/p/.*", "re:.*ssh.*", "/q/**",
		"**", "*", float64(1), true, "re:(", "~bob/x", float64(0), "re:(?i).*SSH.*", "/p/*.txt", "/p/a*/**"}
	ruleDecisions  = []string{"allow", "ask", "deny", "allow", "allow"}
	callValuesPool = []any{"/p", "/p/a", "/p/a.txt", "/p/../q/x", "/q/a", "~/.ssh/id", "/home/me/.ssh/id",
		"/p/a/../../home/me/.ssh/id", `/p\..\home\me\.ssh\id`, "p/a", "", float64(1), true, "~bob/x",
		[]any{"/p/a", "/q/b"}, []any{"/p/a"}, map[string]any{"deep": "/home/me/.ssh/k"}, math.Copysign(0, -1), false,
		"/p/ab/c.txt", []any{float64(1), "/p/a.txt"}, "true", "1", "yes", json.Number("1"), json.Number("1.0"),
		".ssh/id", "../x", "a", map[string]any{"/home/me/.ssh/k": "v"}, "/P/A", "/p/\u200ba", "/p\uff0fa"}
	callBasesPool = [][]string{nil, {"/p"}, {"/home/me"}, {"/q", "/p"}}
)

func randomRules(rng *rand.Rand) []Rule {
	var out []Rule
	for i := range rng.IntN(5) {
		spec := RuleSpec{Tool: ruleTools[rng.IntN(len(ruleTools))], Decision: ruleDecisions[rng.IntN(len(ruleDecisions))],
			Args: map[string]any{}}
		for range rng.IntN(3) {
			spec.Args[ruleArgNames[rng.IntN(len(ruleArgNames))]] = rulePatterns[rng.IntN(len(rulePatterns))]
		}
		server := ""
		if rng.IntN(3) == 0 {
			server = []string{"fs", "mem"}[rng.IntN(2)]
			spec.Tool = []string{"*", "read", "write"}[rng.IntN(3)]
		}
		if r, err := CompileRule(spec, server, fmt.Sprintf("rule[%d]", i), testHome); err == nil {
			out = append(out, r)
		}
	}
	return out
}

func randomCall(rng *rand.Rand) Call {
	server := []string{"fs", "mem"}[rng.IntN(2)]
	tool := []string{"read", "write"}[rng.IntN(2)]
	args := map[string]any{}
	for range rng.IntN(3) {
		args[ruleArgNames[rng.IntN(len(ruleArgNames))]] = callValuesPool[rng.IntN(len(callValuesPool))]
	}
	return Call{Server: server, Tool: tool, Name: server + NamespaceSep + tool, Args: args,
		Bases: callBasesPool[rng.IntN(len(callBasesPool))]}
}

// alone reports whether r, as the only rule of a read_only gate with
// nothing listed, decides c: the rule matched c on its own.
func alone(r Rule, c Call) bool {
	g := NewGate(Policy{Rules: []Rule{r}, Home: testHome, Servers: []string{"fs", "mem"}})
	return g.Decide(c).Rule != ""
}

// TestPropertyRules: over random rules and calls, deny always wins, an
// ask rule is never overruled by an allow, a read_only server (by the
// global mode or its own) is never widened beyond its allow-list (global
// or its own) and its allow rules, and no rule allows in approve mode.
func TestPropertyRules(t *testing.T) {
	if testing.Short() {
		t.Skip("long (random rules against random paths): make test-e2e runs it")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 1))
	for i := range propertyCases {
		rules, c := randomRules(rng), randomCall(rng)
		listed := rng.IntN(2) == 0
		p := Policy{Mode: Mode(rng.IntN(4)), Rules: rules, Home: testHome, Servers: []string{"fs", "mem"}}
		switch rng.IntN(3) {
		case 1: // the call's server has a mode of its own, which decides
			p.ServerModes = map[string]Mode{c.Server: Mode(rng.IntN(4))}
			p.Mode = Mode(rng.IntN(4))
		case 2: // the other server has one, which does not
			p.ServerModes = map[string]Mode{map[string]string{"fs": "mem", "mem": "fs"}[c.Server]: Mode(rng.IntN(4))}
		}
		if listed {
			if rng.IntN(2) == 0 {
				p.Allow = []string{c.Name}
			} else {
				p.ServerAllow = map[string][]string{c.Server: {c.Tool}}
			}
		}
		mode := p.Mode // the mode that decides c: its server's, else the global one
		if m, ok := p.ServerModes[c.Server]; ok {
			mode = m
		}
		v := NewGate(p).Decide(c)
		var deny, ask, allow bool
		for _, r := range rules {
			if alone(r, c) {
				switch r.Decision {
				case Deny:
					deny = true
				case AskUser:
					ask = true
				case Allow:
					allow = true
				}
			}
		}
		fail := func(why string) {
			t.Fatalf("case %d: %s: mode %s, listed %v, call %v, rules %v: %v (%s)", i, why, mode, listed, c.Args,
				compacts(rules), v.Decision, v.Reason)
		}
		switch {
		case deny && v.Decision != Deny:
			fail("a deny rule matched, the call was not denied")
		case !deny && ask && v.Decision != AskUser && v.Decision != Park:
			fail("an ask rule matched, the call was not put to a person")
		case mode == ReadOnly && v.Decision == Allow && !(listed || allow):
			fail("read_only allowed a call neither listed nor allowed by a rule")
		case mode == ReadOnly && v.Decision == Park:
			fail("read_only parked a call")
		case mode == ReadOnly && v.Decision == AskUser && !ask:
			fail("read_only asked without an ask rule")
		case v.Decision == Allow && mode != Auto && !listed && !allow:
			fail("allowed with no listing, no allow rule, and not auto")
		case v.Decision == Allow && mode == Approve && !listed:
			fail("an allow rule allowed what approve mode parks")
		}
	}
}

func compacts(rules []Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.Compact()+" "+r.DecisionName())
	}
	return out
}

// Path pieces for the traversal property: near misses of the folder
// /home/me/src/p.
var (
	travFolders = []string{"/home/me/src/p", "~/src/p", "/home/me", "/h"}
	travPieces  = []string{"home", "me", "src", "p", "q", "..", ".", "", "~", "~me", "~bob", "p..", ".ssh", "x"}
	travSeps    = []string{"/", "/", "//", `\`}
)

func randomPath(rng *rand.Rand) string {
	var b strings.Builder
	switch rng.IntN(4) {
	case 0:
		b.WriteString("~/")
	case 1:
		b.WriteString(travPieces[rng.IntN(len(travPieces))])
	default:
		b.WriteString("/")
	}
	for range rng.IntN(7) {
		b.WriteString(travPieces[rng.IntN(len(travPieces))])
		b.WriteString(travSeps[rng.IntN(len(travSeps))])
	}
	if rng.IntN(2) == 0 {
		b.WriteString(travPieces[rng.IntN(len(travPieces))])
	}
	return b.String()
}

// resolveAt is v resolved as a server whose folder is base reads it
// (resolve, then, when relative, against base).
func resolveAt(v, base string, backslash bool) string {
	r := resolve(v, backslash)
	if strings.HasPrefix(r, "/") {
		return r
	}
	return resolve(resolve(base, false)+"/"+r, false)
}

// resolve is a naive lexical resolution written for this test: it shares
// no code with the gate. "~" and "~/" are the home; '\' is a separator
// when backslash is set; it returns the resolved path and whether it is
// absolute.
func resolve(v string, backslash bool) string {
	if backslash {
		v = strings.ReplaceAll(v, `\`, "/")
	}
	if v == "~" || strings.HasPrefix(v, "~/") {
		v = testHome + v[1:]
	}
	abs := strings.HasPrefix(v, "/")
	var stack []string
	for _, part := range strings.Split(v, "/") {
		switch part {
		case "", ".":
		case "..":
			if len(stack) > 0 && stack[len(stack)-1] != ".." {
				stack = stack[:len(stack)-1]
			} else if !abs {
				stack = append(stack, "..")
			}
		default:
			stack = append(stack, part)
		}
	}
	out := strings.Join(stack, "/")
	if abs {
		return "/" + out
	}
	return out
}

// inside reports whether the resolved p is folder or below it.
func inside(p, folder string) bool {
	return p == folder || strings.HasPrefix(p, strings.TrimSuffix(folder, "/")+"/")
}

// TestPropertyNoTraversal: over random paths full of "..", ".", "//",
// "./", trailing '/', "~user" and '\', read by a server that resolves a
// relative path against its folder, an allow rule FOLDER/** matches a
// value only when every way to read it resolves inside FOLDER, and a deny
// rule FOLDER/** fires whenever one does.
func TestPropertyNoTraversal(t *testing.T) {
	if testing.Short() {
		t.Skip("long (random paths with traversals): make test-e2e runs it")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 2))
	allowed := 0
	defer func() {
		if !t.Failed() && allowed < propertyCases/100 {
			t.Errorf("only %d of %d random paths resolved inside the folder: the property says little", allowed, propertyCases)
		}
	}()
	for i := range propertyCases {
		folder := travFolders[rng.IntN(len(travFolders))]
		value := randomPath(rng)
		pattern := folder + "/**"
		if rng.IntN(4) == 0 {
			pattern = folder + "/"
		}
		want := resolve(folder, false)
		base := travFolders[rng.IntN(len(travFolders))]
		readings := []string{resolveAt(value, base, false), resolveAt(value, base, true)}
		every := inside(readings[0], want) && inside(readings[1], want)
		some := inside(readings[0], want) || inside(readings[1], want)
		call := fsRead(value)
		call.Bases = []string{resolve(base, false)}
		allow := NewGate(Policy{Home: testHome, Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"path": pattern}, "allow")}})
		deny := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{mustRule(t, "fs", "*", map[string]any{"path": pattern}, "deny")}})
		exact := strings.HasSuffix(pattern, "/") // FOLDER/ is FOLDER itself only
		wantAllow, wantDeny := every, some
		if exact {
			wantAllow = readings[0] == want && readings[1] == want
			wantDeny = readings[0] == want || readings[1] == want
		}
		if wantAllow {
			allowed++
		}
		if got := allow.Decide(call).Decision == Allow; got != wantAllow {
			t.Fatalf("case %d: allow %s, value %q (reads %q): allowed %v, want %v", i, pattern, value, readings, got, wantAllow)
		}
		if got := deny.Decide(call).Decision == Deny; got != wantDeny {
			t.Fatalf("case %d: deny %s, value %q (reads %q): denied %v, want %v", i, pattern, value, readings, got, wantDeny)
		}
	}
}

// TestPropertyIndexAgreesWithEveryRule: over random sets of up to 40
// rules and random calls, the indexed rules decide as trying every rule
// in order would: the same rule, or none.
func TestPropertyIndexAgreesWithEveryRule(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(24, 4))
	servers := []string{"fs", "mem"}
	for i := range propertyCases / 10 {
		var rules []Rule
		for range rng.IntN(10) {
			rules = append(rules, randomRules(rng)...)
		}
		c := randomCall(rng)
		fold := rng.IntN(2) == 0
		rs := newRuleSet(rules, testHome, fold)
		got, ok := rs.decide(c, servers)
		v := newCallValues(c, testHome, fold)
		want := -1
		for j := range rs.rules {
			r := &rs.rules[j]
			if r.covers(c, servers) && r.matches(v) && (want < 0 || severity(r.Decision) > severity(rs.rules[want].Decision)) {
				want = j
			}
		}
		switch {
		case want < 0 && ok:
			t.Fatalf("case %d: call %v: the index found %s, no rule matches (rules %v)", i, c.Args, got.Origin, compacts(rules))
		case want >= 0 && (!ok || got != &rs.rules[want]):
			t.Fatalf("case %d: call %v: the index found %v, every rule tried finds %s (rules %v)", i, c.Args, got, rs.rules[want].Origin, compacts(rules))
		}
	}
}
