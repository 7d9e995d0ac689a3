package styles

import (
	"io/fs"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// TestLazy: a lookup by name parses the one file of that style, or none
// for a name no style has (glamour asks for "charm" before it registers
// it); a style registered before the load hides an embedded one of the
// same name, before and after the load; Get falls back; the load holds
// every file's style.
func TestLazy(t *testing.T) {
	if _, ok := Lookup("charm"); ok || len(parsed) != 1 || loaded {
		t.Fatalf("Lookup(charm) before it is registered: found %v, %d files parsed, loaded %v; want false, 1 (swapoff), false", ok, len(parsed), loaded)
	}
	mine := chroma.MustNewStyle("monokai", chroma.StyleEntries{chroma.Text: "#010203"})
	Register(mine)
	Register(chroma.MustNewStyle("charm", chroma.StyleEntries{}))
	if s, ok := Lookup("monokai"); !ok || s != mine {
		t.Error("Lookup(monokai) is not the registered style")
	}
	if s := Get("dracula"); s == nil || s.Name != "dracula" {
		t.Errorf("Get(dracula) = %v", s)
	}
	if s, ok := Lookup("RPGLE"); !ok || s.Name != "RPGLE" { // in rpgle.xml
		t.Errorf("Lookup(RPGLE) = %v, %v", s, ok)
	}
	if n := len(parsed); n != 3 || loaded { // swapoff (Fallback), dracula, rpgle
		t.Errorf("%d files parsed, loaded %v; want 3, false", n, loaded)
	}
	if Get("no such style") != Fallback || Fallback.Name != "swapoff" {
		t.Error("unknown name: not Fallback")
	}
	files, _ := fs.ReadDir(embedded, ".")
	if n := len(Names()); n != len(files)+1 { // and charm
		t.Errorf("%d names, want %d", n, len(files)+1)
	}
	if !loaded || Registry()["monokai"] != mine || Registry()["swapoff"] != Fallback || Get("dracula") != parsed["dracula.xml"] {
		t.Error("the load replaced a registered style, or parsed a file twice")
	}
}
