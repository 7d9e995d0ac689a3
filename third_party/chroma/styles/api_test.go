package styles

import (
	"io/fs"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// TestFileNames: no two embedded styles share a name, so the file a
// lookup parses (the name and ".xml"), when it holds a style of that
// name, holds the one registering every file would leave under it.
func TestFileNames(t *testing.T) {
	files, err := fs.ReadDir(embedded, ".")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{}
	for _, f := range files {
		r, err := embedded.Open(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		style, err := chroma.NewXMLStyle(r)
		if err != nil {
			t.Fatal(err)
		}
		_ = r.Close()
		if other, ok := seen[style.Name]; ok {
			t.Errorf("%s and %s are both style %q", other, f.Name(), style.Name)
		}
		seen[style.Name] = f.Name()
	}
}

// TestLazy: a style registered before the load hides an embedded one of
// the same name, before and after the load; a lookup by name parses one
// file; Get falls back; the load holds every file's style.
func TestLazy(t *testing.T) {
	mine := chroma.MustNewStyle("monokai", chroma.StyleEntries{chroma.Text: "#010203"})
	Register(mine)
	Register(chroma.MustNewStyle("charm-test", chroma.StyleEntries{}))
	if s, ok := Lookup("monokai"); !ok || s != mine {
		t.Error("Lookup(monokai) is not the registered style")
	}
	if s := Get("dracula"); s == nil || s.Name != "dracula" {
		t.Errorf("Get(dracula) = %v", s)
	}
	if n := len(parsed); n != 2 || loaded { // swapoff (Fallback) and dracula
		t.Errorf("%d files parsed, loaded %v; want 2, false", n, loaded)
	}
	if _, ok := Lookup("RPGLE"); !ok { // rpgle.xml: found by the load
		t.Error("RPGLE not found")
	}
	if !loaded || Get("no such style") != Fallback || Fallback.Name != "swapoff" {
		t.Error("unknown name: not Fallback after the load")
	}
	files, _ := fs.ReadDir(embedded, ".")
	if n := len(Names()); n != len(files)+1 { // and charm-test
		t.Errorf("%d names, want %d", n, len(files)+1)
	}
	if Registry()["monokai"] != mine || Registry()["swapoff"] != Fallback {
		t.Error("the load replaced a registered style, or parsed swapoff twice")
	}
}
