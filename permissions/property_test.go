package permissions

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The property tests replay random histories (a Policy, then what the person
// at the keyboard did, interleaved with calls) against a Gate and against a
// deliberately naive model of the gate's table (docs/ARCHITECTURE.md) written here from the policy data.
// The model shares no code with the gate.

// byteSource turns fuzz bytes into choices; once exhausted it yields zeros.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) next() int {
	if s.i >= len(s.b) {
		return 0
	}
	s.i++
	return int(s.b[s.i-1])
}

func (s *byteSource) more() bool { return s.i < len(s.b) }

func (s *byteSource) pick(pool []string) string { return pool[s.next()%len(pool)] }

// mode yields the four modes plus two unknown values, which must fail closed.
func (s *byteSource) mode() Mode { return Mode(s.next()%6 - 1) }

// pools are small, so that random policies and calls often hit each other,
// and full of near misses: case, prefixes, suffixes, glob characters.
type pools struct{ servers, tools, names, digests []string }

func newPools(s1, s2 string) pools {
	return pools{
		servers: []string{"fs", "FS", "mem", "f", "", "fs_", "fs__read", s1},
		tools:   []string{"read", "Read", "read_file", "write", "*", "re*", "read?", "", "_read", "file", s2},
		names: []string{"fs__read", "fs__Read", "fs__read_file", "fs__write", "fs__*", "fs__", "fs__re*",
			"mem__read", "FS__read", "read", "", "fs___read", "fs__read__file", "fs_____read", s1, s2, s1 + "__" + s2},
		digests: []string{"", "d1", "d2"},
	}
}

func (s *byteSource) names(pool []string) []string {
	var out []string
	for range s.next() % 4 {
		out = append(out, s.pick(pool))
	}
	return out
}

func (s *byteSource) policy(p pools) Policy {
	pol := Policy{Mode: s.mode()}
	if n := s.next() % 3; n > 0 {
		pol.ServerModes = map[string]Mode{}
		for range n {
			pol.ServerModes[s.pick(p.servers)] = s.mode()
		}
	}
	if n := s.next() % 3; n > 0 {
		pol.ServerAllow = map[string][]string{}
		for range n {
			pol.ServerAllow[s.pick(p.servers)] = s.names(p.tools)
		}
	}
	pol.Allow = s.names(p.names)
	pol.FlagAllow = s.names(p.names)
	pol.Servers = s.names(p.servers)
	return pol
}

// model is the naive reference state: the Policy as given plus the runtime
// changes, applied in the most literal way.
type model struct {
	policy      Policy
	global      Mode
	overrides   map[string]Mode
	grants      map[string]modelGrant
	interactive bool
}

// modelGrant is a session grant: by name only (Grant), or for a server's
// tool (GrantCall).
type modelGrant struct{ digest, server, tool string }

// servers are the servers the policy names, anywhere.
func (m *model) servers() []string {
	out := append([]string(nil), m.policy.Servers...)
	for s := range m.policy.ServerModes {
		out = append(out, s)
	}
	for s := range m.policy.ServerAllow {
		out = append(out, s)
	}
	return out
}

// readsAs lists the servers (those the policy names and c's) of which the
// namespaced entry names a tool: server, "__", at least one character.
func (m *model) readsAs(entry string, c Call) map[string]bool {
	out := map[string]bool{}
	for _, s := range append(m.servers(), c.Server) {
		if s != "" && strings.HasPrefix(entry, s+"__") && len(entry) > len(s+"__") {
			out[s] = true
		}
	}
	return out
}

// listed is "allow-listed" computed straight from the policy data: a
// server's allow by original name; a namespaced entry when it names c's
// server and no other, and then c's original or model-facing name; a grant
// made for c's server (by GrantCall, or by Grant when c's server is the
// longest known server that begins the name).
func (m *model) listed(c Call) bool {
	if c.Tool != "" && slices.Contains(m.policy.ServerAllow[c.Server], c.Tool) {
		return true
	}
	if c.Server == "" {
		return false
	}
	for _, entry := range append(slices.Clone(m.policy.Allow), m.policy.FlagAllow...) {
		readers := m.readsAs(entry, c)
		if len(readers) != 1 || !readers[c.Server] {
			continue
		}
		if (c.Tool != "" && entry == c.Server+"__"+c.Tool) || entry == c.Name {
			return true
		}
	}
	gr, granted := m.grants[c.Name]
	if !granted || c.Name == "" || (gr.digest != "" && gr.digest != c.Digest) {
		return false
	}
	if gr.server != "" {
		return gr.server == c.Server && gr.tool == c.Tool
	}
	if !strings.HasPrefix(c.Name, c.Server+"__") {
		return false
	}
	for s := range m.readsAs(c.Name, c) {
		if len(s) > len(c.Server) {
			return false
		}
	}
	return true
}

func (m *model) effective(server string) Mode {
	mode := m.global
	if o, ok := m.overrides[server]; ok {
		mode = o
	}
	if mode < ReadOnly || mode > Auto {
		return ReadOnly
	}
	return mode
}

// want is the gate's table (docs/ARCHITECTURE.md).
func (m *model) want(c Call) Decision {
	if m.listed(c) {
		return Allow
	}
	switch m.effective(c.Server) {
	case Ask:
		if m.interactive {
			return AskUser
		}
		return Deny
	case Approve:
		return Park
	case Auto:
		return Allow
	}
	return Deny
}

// snapshot is everything observable about a gate's state.
type snapshot struct {
	allow       []Entry
	mode        Mode
	overrides   map[string]Mode
	interactive bool
	decided     map[string]bool
}

func snap(g *Gate, callIDs []string) snapshot {
	s := snapshot{allow: g.AllowList(), mode: g.Mode(), overrides: g.ServerModes(),
		interactive: g.Interactive(), decided: map[string]bool{}}
	for _, id := range callIDs {
		if allow, ok := g.UserDecided(id); ok {
			s.decided[id] = allow
		}
	}
	return s
}

func (s snapshot) equal(o snapshot) bool {
	return slices.Equal(s.allow, o.allow) && s.mode == o.mode && maps.Equal(s.overrides, o.overrides) &&
		s.interactive == o.interactive && maps.Equal(s.decided, o.decided)
}

// checkGate replays the history encoded in data and checks every call.
func checkGate(t *testing.T, data []byte, s1, s2 string) {
	t.Helper()
	src := &byteSource{b: data}
	p := newPools(s1, s2)
	pol := src.policy(p)
	g := NewGate(pol)
	m := &model{policy: pol, global: pol.Mode, overrides: maps.Clone(pol.ServerModes),
		grants: map[string]modelGrant{}, interactive: true}
	if m.overrides == nil {
		m.overrides = map[string]Mode{}
	}
	callIDs := []string{"c1", "c2", "c3"}
	var history []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\npolicy: %+v\nhistory:\n  %s", fmt.Sprintf(format, args...), pol, strings.Join(history, "\n  "))
	}

	for step := 0; src.more() && step < 200; step++ {
		switch src.next() % 12 {
		case 0:
			mode := src.mode()
			history = append(history, fmt.Sprintf("SetMode(%v)", mode))
			g.SetMode(mode)
			m.global = mode
		case 1:
			server, mode := src.pick(p.servers), src.mode()
			history = append(history, fmt.Sprintf("SetServerMode(%q, %v)", server, mode))
			g.SetServerMode(server, mode)
			m.overrides[server] = mode
		case 2:
			server := src.pick(p.servers)
			history = append(history, fmt.Sprintf("ClearServerMode(%q)", server))
			g.ClearServerMode(server)
			delete(m.overrides, server)
		case 3:
			on := src.next()%2 == 0
			history = append(history, fmt.Sprintf("SetInteractive(%v)", on))
			g.SetInteractive(on)
			m.interactive = on
		case 4:
			name, digest := src.pick(p.names), src.pick(p.digests)
			if src.next()%2 == 0 {
				history = append(history, fmt.Sprintf("Grant(%q, %q)", name, digest))
				g.Grant(name, digest)
				if name != "" {
					m.grants[name] = modelGrant{digest: digest}
				}
				break
			}
			c := Call{Server: src.pick(p.servers), Tool: src.pick(p.tools), Name: name, Digest: digest}
			history = append(history, fmt.Sprintf("GrantCall(%+v)", c))
			g.GrantCall(c)
			switch {
			case name == "":
			case c.Server == "" || c.Tool == "":
				m.grants[name] = modelGrant{digest: digest}
			default:
				m.grants[name] = modelGrant{digest: digest, server: c.Server, tool: c.Tool}
			}
		case 5:
			name := src.pick(p.names)
			history = append(history, fmt.Sprintf("Revoke(%q)", name))
			_, had := m.grants[name]
			if got := g.Revoke(name); got != had {
				fail("Revoke(%q) = %v, want %v", name, got, had)
			}
			delete(m.grants, name)
		case 6:
			name, digest := src.pick(p.names), src.pick(p.digests)
			history = append(history, fmt.Sprintf("ToolChanged(%q, %q)", name, digest))
			var want []string
			if old, ok := m.grants[name]; ok && old.digest != digest {
				want = []string{name}
				delete(m.grants, name)
			}
			if got := g.ToolChanged(name, digest); !slices.Equal(got, want) {
				fail("ToolChanged(%q, %q) = %v, want %v", name, digest, got, want)
			}
		case 7:
			id := callIDs[src.next()%len(callIDs)]
			allow := src.next()%2 == 0
			history = append(history, fmt.Sprintf("RecordDecision(%q, %v)", id, allow))
			g.RecordDecision(id, allow)
		default:
			c := Call{Server: src.pick(p.servers), Tool: src.pick(p.tools), Name: src.pick(p.names), Digest: src.pick(p.digests)}
			history = append(history, fmt.Sprintf("Decide(%+v)", c))
			checkCall(g, m, c, callIDs, fail)
		}
	}
	// Whatever happened, every call is still decided by the table.
	c := Call{Server: s1, Tool: s2, Name: s1 + "__" + s2, Digest: "d1"}
	history = append(history, fmt.Sprintf("Decide(%+v)", c))
	checkCall(g, m, c, callIDs, fail)
}

func checkCall(g *Gate, m *model, c Call, callIDs []string, fail func(string, ...any)) {
	before := snap(g, callIDs)
	v := g.Decide(c)
	again := g.Decide(c)
	after := snap(g, callIDs)

	// (3) Decide is deterministic and changes nothing.
	if v != again {
		fail("Decide is not deterministic: %+v then %+v", v, again)
	}
	if !before.equal(after) {
		fail("Decide changed the gate: %+v → %+v", before, after)
	}

	listed, eff := m.listed(c), m.effective(c.Server)
	if v.Mode != eff {
		fail("Verdict.Mode = %v, want %v", v.Mode, eff)
	}
	// (1) In effective read_only, Allow only if allow-listed.
	if eff == ReadOnly && v.Decision == Allow && !listed {
		fail("read_only allowed an unlisted call: %+v", v)
	}
	// (2) In ask and approve, never Allow without the allow-list: a person
	// must decide (the session records that, not Decide).
	if (eff == Ask || eff == Approve) && v.Decision == Allow && !listed {
		fail("%v allowed an unlisted call: %+v", eff, v)
	}
	// The whole table.
	if want := m.want(c); v.Decision != want {
		fail("Decide = %v (%s), want %v (listed=%v, mode=%v, interactive=%v)", v.Decision, v.Reason, want, listed, eff, m.interactive)
	}
	if v.Allowed() != (v.Decision == Allow) || v.Reason == "" || (v.By != ByPolicy && v.By != ByUser) {
		fail("malformed verdict %+v", v)
	}
	if listed != (v.Source != "") {
		fail("Source %q for listed=%v", v.Source, listed)
	}
}

// FuzzGate checks the gate against the naive model for fuzzed histories.
// s1 and s2 join the name pools, so the fuzzer can try arbitrary names.
func FuzzGate(f *testing.F) {
	f.Add([]byte{}, "fs", "read")
	f.Add([]byte{0, 0, 0, 0, 1, 2, 0, 8, 0, 1, 9, 9}, "fs", "write")
	// global ask, fs__read granted with d1, call it with d1 and d2, change the tool
	f.Add([]byte{2, 0, 0, 0, 0, 4, 0, 1, 8, 0, 0, 0, 1, 8, 0, 0, 0, 2, 6, 0, 2, 8, 0, 0, 0, 1}, "x", "y")
	// non-interactive ask
	f.Add([]byte{2, 0, 0, 0, 0, 3, 1, 8, 0, 3, 3, 0}, "FS", "Read")
	// server allow with glob-like tools, calls of near misses
	f.Add([]byte{1, 0, 2, 0, 3, 4, 5, 6, 1, 3, 0, 0, 8, 0, 4, 4, 0, 9, 0, 5, 6, 1}, "fs__", "*")
	// unknown modes everywhere
	f.Add([]byte{5, 1, 1, 5, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 1, 1, 0, 8, 0, 0, 0, 0}, "", "")
	f.Fuzz(func(t *testing.T, data []byte, s1, s2 string) {
		checkGate(t, data, s1, s2)
	})
}

// TestGateProperties runs ~10k seeded random histories in a normal go test.
func TestGateProperties(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(2026, 4))
	extra := []string{"fs", "read", "Read", "fs__read", "mem", "*", "", "write", "a b", "ré"}
	n := 10000
	if testing.Short() {
		n = 1000
	}
	for range n {
		data := make([]byte, r.IntN(96))
		for i := range data {
			data[i] = byte(r.UintN(256))
		}
		checkGate(t, data, extra[r.IntN(len(extra))], extra[r.IntN(len(extra))])
	}
}
