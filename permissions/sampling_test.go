package permissions

import (
	"strings"
	"testing"
)

// TestDecideSampling: a server's sampling request is decided by its own
// allow-list kind and its server's mode; -p never lets one through
// without an explicit entry, and approve asks (a request cannot be parked).
func TestDecideSampling(t *testing.T) {
	t.Parallel()
	type row struct {
		mode        Mode
		interactive bool
		want        Decision
	}
	unlisted := []row{
		{ReadOnly, true, Deny}, {Ask, true, AskUser}, {Approve, true, AskUser}, {Auto, true, Allow},
		{ReadOnly, false, Deny}, {Ask, false, Deny}, {Approve, false, Deny}, {Auto, false, Deny},
	}
	for _, r := range unlisted {
		g := NewGate(Policy{Mode: r.mode, Servers: []string{"every"}})
		g.SetInteractive(r.interactive)
		v := g.DecideSampling("every")
		if v.Decision != r.want {
			t.Errorf("%s interactive=%v: %s (%s), want %s", r.mode, r.interactive, v.Decision, v.Reason, r.want)
		}
		if v.Decision == Deny && !strings.Contains(v.Reason, "every@sampling") {
			t.Errorf("%s: the denial does not say how to allow it: %q", r.mode, v.Reason)
		}
	}
	for _, p := range []Policy{
		{ServerAllow: map[string][]string{"every": {SamplingEntry}}},
		{Allow: []string{"every@sampling"}},
		{FlagAllow: []string{"every@sampling"}},
	} {
		for _, interactive := range []bool{true, false} {
			g := NewGate(p)
			g.SetInteractive(interactive)
			if v := g.DecideSampling("every"); v.Decision != Allow || v.Source == "" {
				t.Errorf("%+v interactive=%v: %+v, want allowed by the list", p, interactive, v)
			}
			if v := g.DecideSampling("other"); v.Decision != Deny {
				t.Errorf("%+v: another server's request: %+v", p, v)
			}
		}
	}
}

// TestSamplingEntriesAllowNoTool: a sampling entry never allows a tool,
// even one named to look like it, and a tool entry never allows sampling.
func TestSamplingEntriesAllowNoTool(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{
		ServerAllow: map[string][]string{"a": {SamplingEntry}, "a__b": {SamplingEntry}},
		Allow:       []string{"a__b@sampling", "a@sampling"},
		Servers:     []string{"a", "a__b"},
	})
	for _, c := range []Call{
		{Server: "a", Tool: "@sampling", Name: "a__@sampling"},
		{Server: "a", Tool: "b@sampling", Name: "a__b@sampling"},
	} {
		if v := g.Decide(c); v.Decision != Deny {
			t.Errorf("tool %+v: %+v, want denied", c, v)
		}
	}
	g = NewGate(Policy{Mode: ReadOnly, Allow: []string{"a__sampling"}, ServerAllow: map[string][]string{"a": {"sampling"}}})
	if v := g.DecideSampling("a"); v.Decision != Deny {
		t.Errorf("a tool entry allowed sampling: %+v", v)
	}
}

// TestCheckKindEntry: the config refuses request-kind entries that mean
// nothing, with the entry and the reason.
func TestCheckKindEntry(t *testing.T) {
	t.Parallel()
	servers := []string{"every", "fs"}
	for _, ok := range []string{"every@sampling", "fs@sampling", "fs__read_file"} {
		if err := CheckKindEntry(ok, servers); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for entry, want := range map[string]string{
		"every@Sampling":    "the only request kind is @sampling",
		"every@elicitation": "the only request kind is @sampling",
		"@sampling":         "name the server",
		"nope@sampling":     `no server "nope" is configured`,
		"every.sampling":    "",
	} {
		err := CheckKindEntry(entry, servers)
		switch {
		case want == "" && err != nil:
			t.Errorf("%q: %v", entry, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), entry)):
			t.Errorf("%q: %v, want %q", entry, err, want)
		}
	}
	if err := CheckServerKindEntry("@sampling"); err != nil {
		t.Error(err)
	}
	if err := CheckServerKindEntry("every@sampling"); err == nil || !strings.Contains(err.Error(), `"@sampling"`) {
		t.Errorf("server allow every@sampling: %v", err)
	}
}

// TestAllowListShowsSampling: /allow lists a server's @sampling as
// SERVER@sampling.
func TestAllowListShowsSampling(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{ServerAllow: map[string][]string{"every": {SamplingEntry}}})
	if l := g.AllowList(); len(l) != 1 || l[0].Name != "every@sampling" {
		t.Fatalf("%+v", l)
	}
}
