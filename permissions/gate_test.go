package permissions

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// fsWrite is the call most tests decide on: a write tool of the fs server.
var fsWrite = Call{Server: "fs", Tool: "write_file", Name: "fs__write_file", Digest: "d1"}

// listedBy builds a gate in which fsWrite is allow-listed by src ("" for not
// at all), with global mode m.
func listedBy(src Source, m Mode) *Gate {
	p := Policy{Mode: m}
	switch src {
	case FromServer:
		p.ServerAllow = map[string][]string{"fs": {"write_file"}}
	case FromConfig:
		p.Allow = []string{"fs__write_file"}
	case FromFlag:
		p.FlagAllow = []string{"fs__write_file"}
	}
	g := NewGate(p)
	if src == FromSession {
		g.Grant("fs__write_file", "d1")
	}
	return g
}

// TestDesignTable checks every cell of the gate's table (docs/ARCHITECTURE.md), for every
// allow-list source, interactive and not.
func TestDesignTable(t *testing.T) {
	t.Parallel()
	// The specification: mode → (allow-listed, any other tool, any other tool
	// without anyone to ask).
	table := []struct {
		mode                   Mode
		listed, other, otherNI Decision
	}{
		{ReadOnly, Allow, Deny, Deny},
		{Ask, Allow, AskUser, Deny},
		{Approve, Allow, Park, Park},
		{Auto, Allow, Allow, Allow},
	}
	sources := []Source{"", FromServer, FromConfig, FromFlag, FromSession}
	for _, row := range table {
		for _, src := range sources {
			for _, interactive := range []bool{true, false} {
				name := fmt.Sprintf("%s/%s/interactive=%v", row.mode, label(src, "not listed"), interactive)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					g := listedBy(src, row.mode)
					g.SetInteractive(interactive)
					want := row.listed
					switch {
					case src == "" && interactive:
						want = row.other
					case src == "":
						want = row.otherNI
					}
					v := g.Decide(fsWrite)
					if v.Decision != want {
						t.Fatalf("Decide = %v (%s), want %v", v.Decision, v.Reason, want)
					}
					if v.Mode != row.mode {
						t.Errorf("Verdict.Mode = %v, want %v", v.Mode, row.mode)
					}
					if v.Reason == "" {
						t.Error("empty reason")
					}
					wantBy := ByPolicy
					if src == FromSession {
						wantBy = ByUser
					}
					if v.By != wantBy {
						t.Errorf("By = %q, want %q", v.By, wantBy)
					}
					if v.Source != src {
						t.Errorf("Source = %q, want %q", v.Source, src)
					}
					if v.Allowed() != (want == Allow) {
						t.Errorf("Allowed() = %v for %v", v.Allowed(), v.Decision)
					}
				})
			}
		}
	}
}

func label(s Source, empty string) string {
	if s == "" {
		return empty
	}
	return string(s)
}

func TestReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		gate   func() *Gate
		call   Call
		want   Decision
		reason string
	}{
		{"read_only global", func() *Gate { return NewGate(Policy{}) }, fsWrite, Deny,
			"fs__write_file is not allow-listed and fs is in read_only mode; the user can allow it with /allow fs__write_file or /mode ask"},
		{"read_only server override", func() *Gate {
			return NewGate(Policy{Mode: Auto, ServerModes: map[string]Mode{"fs": ReadOnly}})
		}, fsWrite, Deny,
			"fs__write_file is not allow-listed and fs is in read_only mode; the user can allow it with /allow fs__write_file or /mode fs ask"},
		{"read_only non-interactive", func() *Gate {
			g := NewGate(Policy{})
			g.SetInteractive(false)
			return g
		}, fsWrite, Deny,
			"fs__write_file is not allow-listed and fs is in read_only mode; the user can allow it with --allow fs__write_file (-p asks no one: in ask mode it would be denied too)"},
		{"non-interactive ask", func() *Gate {
			g := NewGate(Policy{Mode: Ask})
			g.SetInteractive(false)
			return g
		}, fsWrite, Deny,
			"no one to ask in non-interactive mode (-p); fs__write_file is not allow-listed and fs is in ask mode; the user can allow it with --allow fs__write_file"},
		{"ask", func() *Gate { return NewGate(Policy{Mode: Ask}) }, fsWrite, AskUser,
			"fs__write_file is not allow-listed and fs is in ask mode; asking the user"},
		{"approve", func() *Gate { return NewGate(Policy{Mode: Approve}) }, fsWrite, Park,
			"fs__write_file is not allow-listed and fs is in approve mode; waiting for approval"},
		{"auto", func() *Gate { return NewGate(Policy{Mode: Auto}) }, fsWrite, Allow, "auto mode"},
		{"server allow", func() *Gate { return listedBy(FromServer, ReadOnly) }, fsWrite, Allow,
			"write_file is in the allow list of server fs"},
		{"config allow", func() *Gate { return listedBy(FromConfig, ReadOnly) }, fsWrite, Allow,
			"fs__write_file is in permissions.allow"},
		{"flag allow", func() *Gate { return listedBy(FromFlag, ReadOnly) }, fsWrite, Allow,
			"fs__write_file is allowed with --allow"},
		{"session grant", func() *Gate { return listedBy(FromSession, ReadOnly) }, fsWrite, Allow,
			"fs__write_file was allowed for this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := tt.gate().Decide(tt.call)
			if v.Decision != tt.want || v.Reason != tt.reason {
				t.Errorf("Decide = %v %q\nwant     %v %q", v.Decision, v.Reason, tt.want, tt.reason)
			}
			if v.By != ByPolicy && v.By != ByUser {
				t.Errorf("By = %q", v.By)
			}
		})
	}
}

// TestFailsClosed: the zero Gate, a gate for the zero Policy, an empty
// allow-list and unknown modes deny everything.
func TestFailsClosed(t *testing.T) {
	t.Parallel()
	calls := []Call{fsWrite, {}, {Server: "fs"}, {Name: "fs__read"}, {Server: "x", Tool: "y", Name: "x__y"}}
	gates := map[string]*Gate{
		"zero Gate":           new(Gate),
		"zero Policy":         NewGate(Policy{}),
		"empty lists":         NewGate(Policy{ServerAllow: map[string][]string{"fs": {}}, Allow: []string{}, FlagAllow: []string{}}),
		"empty names":         NewGate(Policy{ServerAllow: map[string][]string{"fs": {""}, "": {""}}, Allow: []string{""}, FlagAllow: []string{""}}),
		"unknown global mode": NewGate(Policy{Mode: Mode(42)}),
		"unknown server mode": NewGate(Policy{Mode: Mode(-1), ServerModes: map[string]Mode{"fs": Mode(9)}}),
		"runtime unknown modes": func() *Gate {
			g := NewGate(Policy{Mode: Auto})
			g.SetMode(Mode(5))
			g.SetServerMode("fs", Mode(-3))
			return g
		}(),
	}
	for name, g := range gates {
		g.Grant("", "")
		for _, c := range calls {
			if v := g.Decide(c); v.Decision != Deny || v.Mode != ReadOnly || v.Allowed() {
				t.Errorf("%s: Decide(%+v) = %+v, want a read_only denial", name, c, v)
			}
		}
		if list := g.AllowList(); len(list) != 0 {
			t.Errorf("%s: AllowList() = %v, want empty", name, list)
		}
	}
	if (Verdict{}).Allowed() {
		t.Error("the zero Verdict is allowed")
	}
	if (Verdict{Decision: Allow, By: "model"}).Allowed() {
		t.Error("a Verdict by no known decider is allowed")
	}
	if new(Gate).Interactive() {
		t.Error("the zero Gate is interactive")
	}
	if !NewGate(Policy{}).Interactive() {
		t.Error("NewGate is not interactive")
	}
}

func TestServerAllowIsPerServerAndByOriginalName(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{ServerAllow: map[string][]string{"fs": {"read_text_file"}}})
	tests := []struct {
		call Call
		want Decision
	}{
		{Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file"}, Allow},
		// the namespaced name may be fixed up: the original name decides
		{Call{Server: "fs", Tool: "read_text_file", Name: "fs__read_text_file_2"}, Allow},
		// another server's tool of the same name
		{Call{Server: "mem", Tool: "read_text_file", Name: "mem__read_text_file"}, Deny},
		// the namespaced name does not match a server allow
		{Call{Server: "fs", Tool: "fs__read_text_file", Name: "fs__read_text_file"}, Deny},
		{Call{Server: "fs", Tool: "write_file", Name: "fs__read_text_file"}, Deny},
		{Call{Server: "", Tool: "read_text_file", Name: "read_text_file"}, Deny},
	}
	for _, tt := range tests {
		if v := g.Decide(tt.call); v.Decision != tt.want {
			t.Errorf("Decide(%+v) = %v (%s), want %v", tt.call, v.Decision, v.Reason, tt.want)
		}
	}
}

func TestNamespacedAllowMatchesServerAndTool(t *testing.T) {
	t.Parallel()
	for _, p := range []Policy{{Allow: []string{"fs__list_directory"}}, {FlagAllow: []string{"fs__list_directory"}}} {
		g := NewGate(p)
		if v := g.Decide(Call{Server: "fs", Tool: "list_directory", Name: "fs__list_directory"}); v.Decision != Allow {
			t.Errorf("%+v: listed call = %v", p, v.Decision)
		}
		// the original name alone is not a namespaced entry
		if v := g.Decide(Call{Server: "fs", Tool: "fs__list_directory", Name: "fs__list_dir"}); v.Decision != Deny {
			t.Errorf("%+v: Tool matched a namespaced entry: %v", p, v.Decision)
		}
		// a namespaced entry names a server's tool: it does not match
		// another server's tool because the model-facing string is equal
		if v := g.Decide(Call{Server: "other", Tool: "x", Name: "fs__list_directory"}); v.Decision != Deny {
			t.Errorf("%+v: another server's call matched: %v", p, v.Decision)
		}
		// it names the tool by its original name, whatever its
		// model-facing name had to become
		if v := g.Decide(Call{Server: "fs", Tool: "list_directory", Name: "fs__list_directory_2"}); v.Decision != Allow {
			t.Errorf("%+v: original name did not match: %v", p, v.Decision)
		}
	}
	// A tool whose name had to be fixed up is named by its model-facing name.
	g := NewGate(Policy{Allow: []string{"fs__read_file_1a2b3c4d"}})
	if v := g.Decide(Call{Server: "fs", Tool: "read.file", Name: "fs__read_file_1a2b3c4d"}); v.Decision != Allow {
		t.Errorf("fixed-up name: %v", v.Decision)
	}
}

// TestNamespacedEntryOfTwoServers: servers x (tool _foo) and x_ (tool foo)
// both read from x___foo; an entry meant for one must not run the other.
func TestNamespacedEntryOfTwoServers(t *testing.T) {
	t.Parallel()
	xFoo := Call{Server: "x", Tool: "_foo", Name: "x__Xfoo_bb4da7b5", Digest: "d1"}
	xUFoo := Call{Server: "x_", Tool: "foo", Name: "x___foo", Digest: "d2"}
	servers := []string{"x", "x_"}

	// The ambiguous entry allows neither, and the config is told why.
	for _, p := range []Policy{
		{Servers: servers, Allow: []string{"x___foo"}},
		{Servers: servers, FlagAllow: []string{"x___foo"}},
		// a server the policy gives a mode or an allow is known too
		{ServerModes: map[string]Mode{"x": ReadOnly, "x_": ReadOnly}, Allow: []string{"x___foo"}},
		{ServerAllow: map[string][]string{"x": {"other"}}, ServerModes: map[string]Mode{"x_": ReadOnly}, Allow: []string{"x___foo"}},
	} {
		g := NewGate(p)
		for _, c := range []Call{xFoo, xUFoo} {
			if v := g.Decide(c); v.Decision != Deny {
				t.Errorf("%+v: %+v = %v by %s, want deny", p, c, v.Decision, v.Source)
			}
		}
	}
	err := CheckEntry("x___foo", servers)
	var amb *AmbiguousEntryError
	if !errors.As(err, &amb) || len(amb.Readings) != 2 ||
		amb.Readings[0] != (Reading{"x", "_foo"}) || amb.Readings[1] != (Reading{"x_", "foo"}) {
		t.Fatalf("CheckEntry = %v", err)
	}
	for _, want := range []string{`"x___foo"`, `tool "_foo" of server "x"`, `tool "foo" of server "x_"`, `"allow"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %s", err, want)
		}
	}
	if err := CheckEntry("x__bar", servers); err != nil {
		t.Errorf("x__bar: %v", err)
	}

	// Unambiguous entries name one server's tool only.
	g := NewGate(Policy{Servers: servers, Allow: []string{"x__Xfoo_bb4da7b5", "x__bar"}})
	if v := g.Decide(xFoo); v.Decision != Allow {
		t.Errorf("x's _foo by its model-facing name: %v", v.Decision)
	}
	if v := g.Decide(Call{Server: "x_", Tool: "bar", Name: "x___bar"}); v.Decision != Deny {
		t.Errorf("x__bar allowed x_'s bar: %v", v.Decision)
	}
	if v := g.Decide(Call{Server: "x", Tool: "bar", Name: "x__bar"}); v.Decision != Allow {
		t.Errorf("x__bar: %v", v.Decision)
	}

	// A session grant covers the server it was made for.
	for _, grantIt := range []func(g *Gate){
		func(g *Gate) { g.Grant("x___foo", "d2") },
		func(g *Gate) { g.GrantCall(xUFoo) },
	} {
		g := NewGate(Policy{Servers: servers})
		grantIt(g)
		if v := g.Decide(xUFoo); v.Decision != Allow || v.Source != FromSession {
			t.Errorf("granted x_'s foo: %v", v.Decision)
		}
		// x's _foo, even under the same model-facing name
		for _, c := range []Call{xFoo, {Server: "x", Tool: "_foo", Name: "x___foo", Digest: "d2"}} {
			if v := g.Decide(c); v.Decision != Deny {
				t.Errorf("the grant for x_'s foo allowed %+v", c)
			}
		}
	}
}

// TestExactMatching: no case folding, no prefixes, no suffixes, no globs.
func TestExactMatching(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{
		ServerAllow: map[string][]string{"fs": {"read", "list*", "get?", "[ab]"}},
		Allow:       []string{"fs__read_text_file", "fs__*", "mem__"},
		FlagAllow:   []string{"crm__?", "crm__get_[a-z]"},
	})
	g.Grant("fs__edit", "")
	denied := []Call{
		{Server: "fs", Tool: "Read", Name: "fs__Read"},
		{Server: "FS", Tool: "read", Name: "FS__read"},
		{Server: "fs", Tool: "READ_TEXT_FILE", Name: "fs__READ_TEXT_FILE"},
		{Server: "fs", Tool: "reads", Name: "fs__reads"},
		{Server: "fs", Tool: "rea", Name: "fs__rea"},
		{Server: "fs", Tool: "read ", Name: "fs__read "},
		{Server: "fs", Tool: "list_directory", Name: "fs__list_directory"},
		{Server: "fs", Tool: "geta", Name: "fs__geta"},
		{Server: "fs", Tool: "a", Name: "fs__a"},
		{Server: "fs", Tool: "x", Name: "fs__read_text_file_v2"},
		{Server: "fs", Tool: "x", Name: "fs__read_text"},
		{Server: "fs", Tool: "x", Name: "fs__x"},
		{Server: "mem", Tool: "x", Name: "mem__x"},
		{Server: "crm", Tool: "a", Name: "crm__a"},
		{Server: "crm", Tool: "get_a", Name: "crm__get_a"},
		{Server: "fs", Tool: "edit2", Name: "fs__edit2"},
		{Server: "fs", Tool: "Edit", Name: "fs__Edit"},
		// an entry with no tool names none
		{Server: "mem", Tool: "", Name: "mem__"},
		// an entry names a server's tool, not a model-facing string
		{Server: "x", Tool: "x", Name: "fs__*"},
		{Server: "x", Tool: "x", Name: "fs__edit"},
	}
	for _, c := range denied {
		if v := g.Decide(c); v.Decision != Deny {
			t.Errorf("Decide(%+v) = %v by %s, want deny", c, v.Decision, v.Source)
		}
	}
	// Glob-like entries are literal names.
	literal := []Call{
		{Server: "fs", Tool: "list*", Name: "x"},
		{Server: "fs", Tool: "get?", Name: "x"},
		{Server: "fs", Tool: "[ab]", Name: "x"},
		{Server: "fs", Tool: "*", Name: "fs__*"},
		{Server: "crm", Tool: "?", Name: "crm__?"},
		{Server: "crm", Tool: "get_[a-z]", Name: "crm__get_[a-z]"},
		{Server: "fs", Tool: "edit", Name: "fs__edit"},
	}
	for _, c := range literal {
		if v := g.Decide(c); v.Decision != Allow {
			t.Errorf("Decide(%+v) = %v, want the literal entry to allow it", c, v.Decision)
		}
	}
}

func TestServerModeOverridesGlobal(t *testing.T) {
	t.Parallel()
	mem := Call{Server: "mem", Tool: "create_entities", Name: "mem__create_entities"}

	// A stricter server under a permissive global mode.
	g := NewGate(Policy{Mode: Auto, ServerModes: map[string]Mode{"fs": ReadOnly}})
	if v := g.Decide(fsWrite); v.Decision != Deny || v.Mode != ReadOnly {
		t.Errorf("fs read_only under global auto: %+v", v)
	}
	if v := g.Decide(mem); v.Decision != Allow || v.Mode != Auto {
		t.Errorf("mem under global auto: %+v", v)
	}
	// A more permissive server under a strict global mode.
	g = NewGate(Policy{Mode: ReadOnly, ServerModes: map[string]Mode{"fs": Approve}})
	if v := g.Decide(fsWrite); v.Decision != Park || v.Mode != Approve {
		t.Errorf("fs approve under global read_only: %+v", v)
	}
	if v := g.Decide(mem); v.Decision != Deny {
		t.Errorf("mem under global read_only: %+v", v)
	}

	// /mode changes the global mode but not an override; /mode SERVER does.
	g.SetMode(Auto)
	if g.Mode() != Auto || g.EffectiveMode("fs") != Approve || g.EffectiveMode("mem") != Auto {
		t.Errorf("after /mode auto: global %v fs %v mem %v", g.Mode(), g.EffectiveMode("fs"), g.EffectiveMode("mem"))
	}
	g.SetServerMode("mem", Ask)
	if v := g.Decide(mem); v.Decision != AskUser {
		t.Errorf("after /mode mem ask: %+v", v)
	}
	g.SetServerMode("fs", ReadOnly)
	if v := g.Decide(fsWrite); v.Decision != Deny {
		t.Errorf("after /mode fs read_only: %+v", v)
	}
	if m, ok := g.ServerMode("fs"); m != ReadOnly || !ok {
		t.Errorf("ServerMode(fs) = %v, %v", m, ok)
	}
	if m, ok := g.ServerMode("other"); m != Auto || ok {
		t.Errorf("ServerMode(other) = %v, %v; want the global mode, not overridden", m, ok)
	}
	if got := g.ServerModes(); len(got) != 2 || got["fs"] != ReadOnly || got["mem"] != Ask {
		t.Errorf("ServerModes() = %v", got)
	}
	if !g.ClearServerMode("fs") || g.ClearServerMode("fs") {
		t.Error("ClearServerMode did not report the override exactly once")
	}
	if v := g.Decide(fsWrite); v.Decision != Allow || v.Reason != "auto mode" {
		t.Errorf("after clearing fs: %+v", v)
	}
	// The zero Gate accepts a server override.
	var zero Gate
	zero.SetServerMode("fs", Auto)
	if v := zero.Decide(fsWrite); v.Decision != Allow {
		t.Errorf("zero gate with /mode fs auto: %+v", v)
	}
}

func TestNonInteractive(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Ask, ServerModes: map[string]Mode{"crm": Approve}})
	g.SetInteractive(false)
	v := g.Decide(fsWrite)
	if v.Decision != Deny || v.Mode != Ask || !strings.HasPrefix(v.Reason, "no one to ask in non-interactive mode (-p); ") {
		t.Errorf("non-interactive ask = %+v", v)
	}
	// approve still parks: -p exits with status 3 and the approval id
	if v := g.Decide(Call{Server: "crm", Tool: "t", Name: "crm__t"}); v.Decision != Park {
		t.Errorf("non-interactive approve = %+v", v)
	}
	g.SetInteractive(true)
	if v := g.Decide(fsWrite); v.Decision != AskUser {
		t.Errorf("interactive again = %+v", v)
	}
}

// TestPolicyIsCopied: changing the Policy after NewGate changes nothing.
func TestPolicyIsCopied(t *testing.T) {
	t.Parallel()
	p := Policy{
		ServerModes: map[string]Mode{"fs": ReadOnly},
		ServerAllow: map[string][]string{"fs": {"read"}},
		Allow:       []string{"fs__a"},
		FlagAllow:   []string{"fs__b"},
	}
	g := NewGate(p)
	before := g.AllowList()
	p.ServerModes["fs"] = Auto
	p.ServerAllow["fs"][0] = "write_file"
	p.ServerAllow["mem"] = []string{"x"}
	p.Allow[0] = "fs__write_file"
	p.FlagAllow[0] = "fs__write_file"
	if v := g.Decide(fsWrite); v.Decision != Deny {
		t.Errorf("a change to the Policy reached the gate: %+v", v)
	}
	if after := g.AllowList(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("AllowList changed: %v → %v", before, after)
	}
}

// TestConcurrentUse: the gate fails closed while the user changes modes,
// grants and interactivity concurrently. Each verdict is checked against the
// mode it reports, which Decide reads under the same lock as the rest, so
// every check holds however the changes interleave:
//
//   - an unlisted call is allowed only in auto mode;
//   - fs is pinned to read_only (its override never changes, and none of its
//     decided tools is ever granted under its own digest): every verdict is
//     Deny;
//   - mem only ever moves between read_only, ask and approve: nothing is
//     ever allowed there, and each verdict matches its mode;
//   - an allow-listed tool is allowed in every mode;
//   - the first recorded decision for a call id is the one that stands.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{
		Mode:        Ask,
		ServerModes: map[string]Mode{"fs": ReadOnly, "mem": Ask},
		Allow:       []string{"fs__listed"},
		Servers:     []string{"fs", "mem", "web", "other"},
	})
	// The changers make rounds changes each, while the deciders decide on
	// until the changers are done (and at least a few hundred times).
	const rounds = 500
	var changers sync.WaitGroup
	var changed atomic.Bool
	change := func(f func(j int)) {
		changers.Go(func() {
			for j := range rounds {
				f(j)
				runtime.Gosched() // with few cores, let the deciders in between changes
			}
		})
	}
	change(func(j int) { // the global mode, including auto and an unknown one
		g.SetMode(Mode(j % 5))
	})
	change(func(j int) { // mem: never auto
		g.SetServerMode("mem", Mode(j%3))
	})
	change(func(j int) { // web: any mode, or none
		if j%3 == 0 {
			g.ClearServerMode("web")
		} else {
			g.SetServerMode("web", Mode(j%4))
		}
	})
	change(func(j int) { // grants that cover none of the decided calls but mem__granted
		name := fmt.Sprintf("fs__t%d", j%5)
		g.Grant(name, "another definition")
		g.GrantCall(Call{Server: "mem", Tool: "t", Name: name, Digest: "d"})
		g.ToolChanged(name, "d")
		g.Revoke(name)
		g.GrantCall(Call{Server: "mem", Tool: "granted", Name: "mem__granted", Digest: "d"})
		g.Revoke("mem__granted")
	})
	change(func(j int) {
		g.SetInteractive(j%2 == 0)
		g.AllowList()
		g.EffectiveMode("mem")
	})
	change(func(j int) {
		g.RecordDecision(fmt.Sprintf("call_%d", j%7), j%2 == 0)
	})

	overlapping := func(j int) bool { return j < 200 || !changed.Load() }
	var deciders sync.WaitGroup
	decide := func(check func(c Call, v Verdict) string, calls ...Call) {
		deciders.Go(func() {
			for j := 0; overlapping(j); j++ {
				runtime.Gosched()
				c := calls[j%len(calls)]
				v := g.Decide(c)
				if why := check(c, v); why != "" {
					t.Errorf("%s: %+v: %s", c.Name, v, why)
					return
				}
			}
		})
	}
	unlisted := func(c Call, v Verdict) string {
		if v.Decision == Allow && (v.Mode != Auto || v.Reason != "auto mode" || v.Source != "") {
			return "an unlisted call allowed outside auto mode"
		}
		return ""
	}
	tool := func(server, name string) Call {
		return Call{Server: server, Tool: name, Name: server + NamespaceSep + name, Digest: "d"}
	}
	decide(func(c Call, v Verdict) string {
		if v.Decision != Deny || v.Mode != ReadOnly || v.Allowed() {
			return "fs is read_only: want Deny"
		}
		return ""
	}, tool("fs", "t0"), tool("fs", "t1"), tool("fs", "t2"), tool("fs", "t3"), tool("fs", "t4"))
	decide(func(c Call, v Verdict) string {
		switch {
		case v.Decision == Allow || v.Allowed():
			return "mem is never in auto mode: nothing runs without a decision"
		case v.Decision == AskUser && v.Mode != Ask,
			v.Decision == Park && v.Mode != Approve,
			v.Decision == Deny && v.Mode != ReadOnly && v.Mode != Ask:
			return "the verdict does not match its mode"
		}
		return ""
	}, tool("mem", "t"), tool("mem", "write"))
	decide(func(c Call, v Verdict) string {
		if v.Decision == Allow && (v.Source != FromSession || v.By != ByUser) {
			return "mem is never in auto mode: only its session grant lets mem__granted run"
		}
		return ""
	}, tool("mem", "granted"))
	decide(unlisted, tool("web", "fetch"), tool("other", "x"), tool("fs", "t0"))
	decide(func(c Call, v Verdict) string {
		if !v.Allowed() || v.Source != FromConfig || v.By != ByPolicy {
			return "an allow-listed call must run in every mode"
		}
		return ""
	}, Call{Server: "fs", Tool: "listed", Name: "fs__listed"})
	deciders.Go(func() { // a decision, once recorded, never changes
		seen := map[string]bool{}
		for j := 0; overlapping(j); j++ {
			id := fmt.Sprintf("call_%d", j%7)
			allow, ok := g.UserDecided(id)
			if first, had := seen[id]; had && (!ok || allow != first) {
				t.Errorf("decision for %s went from %v to %v (recorded %v)", id, first, allow, ok)
				return
			}
			if ok {
				seen[id] = allow
			}
		}
	})
	changers.Wait()
	changed.Store(true)
	deciders.Wait()
}
