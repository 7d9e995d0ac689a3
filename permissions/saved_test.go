package permissions

import (
	"slices"
	"strings"
	"testing"
)

func TestSavedGrantMatchesServerToolAndDigest(t *testing.T) {
	t.Parallel()
	saved := SavedGrant{Server: "fs", Tool: "write_file", Digest: "d1"}
	tests := []struct {
		name string
		call Call
		want Decision
	}{
		{"same tool and digest", Call{Server: "fs", Tool: "write_file", Name: "fs__write_file", Digest: "d1"}, Allow},
		{"digest changed", Call{Server: "fs", Tool: "write_file", Name: "fs__write_file", Digest: "d2"}, Deny},
		{"digest unknown", Call{Server: "fs", Tool: "write_file", Name: "fs__write_file"}, Deny},
		{"other server, same tool", Call{Server: "fs2", Tool: "write_file", Name: "fs2__write_file", Digest: "d1"}, Deny},
		{"other tool, same digest", Call{Server: "fs", Tool: "delete_file", Name: "fs__delete_file", Digest: "d1"}, Deny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := NewGate(Policy{Servers: []string{"fs", "fs2"}})
			g.SetSaved([]SavedGrant{saved})
			v := g.Decide(tt.call)
			if v.Decision != tt.want {
				t.Fatalf("Decide = %+v, want %v", v, tt.want)
			}
			if v.Decision == Allow {
				if v.Source != FromSaved || v.By != ByUser || !v.Allowed() || !strings.Contains(v.Reason, "allowed always") {
					t.Errorf("verdict %+v, want allowed by a saved grant of the user", v)
				}
			}
		})
	}
}

func TestSavedGrantChangedDefinitionAsksAgainAndSaysWhy(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{Mode: Ask})
	g.SetSaved([]SavedGrant{{Server: "fs", Tool: "write_file", Digest: "old"}})
	c := Call{Server: "fs", Tool: "write_file", Name: "fs__write_file", Digest: "new"}
	if !g.SavedStale(c) {
		t.Error("SavedStale = false for a changed digest")
	}
	v := g.Decide(c)
	if v.Decision != AskUser || !strings.Contains(v.Reason, "changed its definition since you allowed it always") {
		t.Errorf("Decide = %+v, want AskUser saying the definition changed", v)
	}
	c.Digest = "old"
	if g.SavedStale(c) {
		t.Error("SavedStale = true for the saved digest")
	}
	if v := g.Decide(c); v.Decision != Allow || v.Source != FromSaved {
		t.Errorf("Decide = %+v, want allowed by the saved grant", v)
	}
}

func TestSavedGrantIncompleteIgnored(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{})
	g.SetSaved([]SavedGrant{{Server: "fs", Tool: "write_file"}, {Server: "fs", Digest: "d"}, {Tool: "write_file", Digest: "d"}})
	if g.AddSaved(SavedGrant{Server: "fs", Tool: "write_file"}) {
		t.Error("AddSaved took a grant without a digest")
	}
	if got := g.Saved(); len(got) != 0 {
		t.Fatalf("Saved = %+v, want none", got)
	}
	// Without a digest, no call is covered, even one without a digest either.
	if v := g.Decide(Call{Server: "fs", Tool: "write_file", Name: "fs__write_file"}); v.Decision != Deny {
		t.Errorf("Decide = %+v, want Deny", v)
	}
}

func TestSavedGrantAddRemoveAndList(t *testing.T) {
	t.Parallel()
	g := NewGate(Policy{})
	if !g.AddSaved(SavedGrant{Server: "fs", Tool: "write_file", Digest: "d1"}) {
		t.Fatal("AddSaved refused a complete grant")
	}
	g.Grant("fs__write_file", "d1")
	list := g.AllowList()
	want := []Entry{{Name: "fs__write_file", Source: FromSaved, Server: "fs"}, {Name: "fs__write_file", Source: FromSession}}
	if !slices.Equal(list, want) {
		t.Errorf("AllowList = %+v, want %+v", list, want)
	}
	c := Call{Server: "fs", Tool: "write_file", Name: "fs__write_file", Digest: "d1"}
	if v := g.Decide(c); v.Source != FromSaved {
		t.Errorf("Source = %q, want the saved grant (more durable than the session grant)", v.Source)
	}
	if !g.RemoveSaved("fs", "write_file") || g.RemoveSaved("fs", "write_file") {
		t.Error("RemoveSaved should report true once, then false")
	}
	if v := g.Decide(c); v.Source != FromSession {
		t.Errorf("after RemoveSaved: Decide = %+v, want the session grant", v)
	}
	g.Revoke("fs__write_file")
	if v := g.Decide(c); v.Decision != Deny {
		t.Errorf("after both revoked: Decide = %+v, want Deny", v)
	}
}
