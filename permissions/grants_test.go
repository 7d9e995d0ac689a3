package permissions

import (
	"slices"
	"testing"
)

func TestGrantDigest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		grantDigest string
		callDigest  string
		want        Decision
	}{
		{"same digest", "d1", "d1", Allow},
		{"other digest", "d1", "d2", Deny},
		{"call digest unknown", "d1", "", Deny},
		{"grant digest unknown", "", "d2", Allow},
		{"both unknown", "", "", Allow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := NewGate(Policy{})
			g.Grant("fs__write_file", tt.grantDigest)
			c := fsWrite
			c.Digest = tt.callDigest
			v := g.Decide(c)
			if v.Decision != tt.want {
				t.Fatalf("Decide = %+v, want %v", v, tt.want)
			}
			if v.Decision == Allow && (v.Source != FromSession || v.By != ByUser) {
				t.Errorf("allowed by %q/%q, want a session grant by the user", v.Source, v.By)
			}
		})
	}
}

func TestToolChanged(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Allow: []string{"fs__write_file"}})
	g.Grant("fs__write_file", "d1")
	g.Grant("fs__edit_file", "d1")
	g.Grant("fs__move_file", "")

	// The same digest keeps the grant.
	if dropped := g.ToolChanged("fs__edit_file", "d1"); dropped != nil {
		t.Errorf("same digest dropped %v", dropped)
	}
	if v := g.Decide(Call{Server: "fs", Tool: "edit_file", Name: "fs__edit_file", Digest: "d1"}); v.Decision != Allow {
		t.Errorf("grant with unchanged digest: %+v", v)
	}
	// A new digest drops it, and says so.
	if dropped := g.ToolChanged("fs__edit_file", "d2"); !slices.Equal(dropped, []string{"fs__edit_file"}) {
		t.Errorf("ToolChanged = %v, want [fs__edit_file]", dropped)
	}
	for _, d := range []string{"d1", "d2", ""} {
		if v := g.Decide(Call{Server: "fs", Tool: "edit_file", Name: "fs__edit_file", Digest: d}); v.Decision != Deny {
			t.Errorf("dropped grant still allows digest %q: %+v", d, v)
		}
	}
	// A grant made without a digest is dropped by any change.
	if dropped := g.ToolChanged("fs__move_file", "d9"); !slices.Equal(dropped, []string{"fs__move_file"}) {
		t.Errorf("ToolChanged(move) = %v", dropped)
	}
	// Config entries are not grants: they stay.
	if dropped := g.ToolChanged("fs__write_file", "d2"); !slices.Equal(dropped, []string{"fs__write_file"}) {
		t.Errorf("ToolChanged(write) = %v", dropped)
	}
	if v := g.Decide(fsWrite); v.Decision != Allow || v.Source != FromConfig {
		t.Errorf("config entry after a change: %+v", v)
	}
	// Nothing to drop.
	if dropped := g.ToolChanged("fs__nothing", "d1"); dropped != nil {
		t.Errorf("ToolChanged(unknown) = %v", dropped)
	}
	// Granting again after a change covers the new definition.
	g.Grant("fs__edit_file", "d2")
	if v := g.Decide(Call{Server: "fs", Tool: "edit_file", Name: "fs__edit_file", Digest: "d2"}); v.Decision != Allow {
		t.Errorf("re-grant: %+v", v)
	}
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Ask, FlagAllow: []string{"fs__read"}})
	g.Grant("fs__write_file", "d1")
	if !g.Revoke("fs__write_file") {
		t.Error("Revoke of a grant returned false")
	}
	if g.Revoke("fs__write_file") {
		t.Error("second Revoke returned true")
	}
	if v := g.Decide(fsWrite); v.Decision != AskUser {
		t.Errorf("after Revoke: %+v", v)
	}
	if g.Revoke("fs__read") {
		t.Error("Revoke removed a flag entry")
	}
	if v := g.Decide(Call{Server: "fs", Tool: "read", Name: "fs__read"}); v.Decision != Allow {
		t.Errorf("flag entry after Revoke: %+v", v)
	}
	var zero Gate
	if zero.Revoke("x") {
		t.Error("Revoke on the zero gate returned true")
	}
	zero.Grant("fs__write_file", "d1")
	if v := zero.Decide(fsWrite); v.Decision != Allow {
		t.Errorf("grant on the zero gate: %+v", v)
	}
}

func TestAllowList(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{
		ServerAllow: map[string][]string{"fs": {"read_text_file", "list_directory", "read_text_file"}, "mem": {"read_graph"}, "empty": nil},
		Allow:       []string{"fs__list_directory", "crm__search"},
		FlagAllow:   []string{"fs__list_directory", "crm__search", "crm__search"},
	})
	g.Grant("fs__list_directory", "d")
	g.Grant("mem__create_entities", "d")
	want := []Entry{
		{Name: "crm__search", Source: FromConfig},
		{Name: "crm__search", Source: FromFlag},
		{Name: "fs__list_directory", Source: FromServer, Server: "fs"},
		{Name: "fs__list_directory", Source: FromConfig},
		{Name: "fs__list_directory", Source: FromFlag},
		{Name: "fs__list_directory", Source: FromSession},
		{Name: "fs__read_text_file", Source: FromServer, Server: "fs"},
		{Name: "mem__create_entities", Source: FromSession},
		{Name: "mem__read_graph", Source: FromServer, Server: "mem"},
	}
	if got := g.AllowList(); !slices.Equal(got, want) {
		t.Errorf("AllowList() =\n%v\nwant\n%v", got, want)
	}
	// When several sources list a call, the most durable one is reported.
	v := g.Decide(Call{Server: "fs", Tool: "list_directory", Name: "fs__list_directory", Digest: "d"})
	if v.Source != FromServer {
		t.Errorf("Source = %q, want %q", v.Source, FromServer)
	}
	g.Revoke("mem__create_entities")
	if got := g.AllowList(); len(got) != len(want)-1 {
		t.Errorf("after Revoke: %v", got)
	}
}

func TestRecordDecision(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Approve})
	if _, ok := g.UserDecided("call-1"); ok {
		t.Fatal("a decision nobody made")
	}
	g.RecordDecision("call-1", true)
	g.RecordDecision("call-2", false)
	g.RecordDecision("call-1", false) // too late: the first decision stands
	g.RecordDecision("", true)
	if allow, ok := g.UserDecided("call-1"); !allow || !ok {
		t.Errorf("call-1 = %v, %v", allow, ok)
	}
	if allow, ok := g.UserDecided("call-2"); allow || !ok {
		t.Errorf("call-2 = %v, %v", allow, ok)
	}
	if _, ok := g.UserDecided(""); ok {
		t.Error("the empty call id was recorded")
	}
	// A recorded decision does not change what the gate decides.
	if v := g.Decide(fsWrite); v.Decision != Park {
		t.Errorf("Decide after a decision = %+v", v)
	}
}
