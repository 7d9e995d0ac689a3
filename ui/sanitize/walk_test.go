package sanitize

import (
	"reflect"
	"strings"
	"testing"
)

type walkInner struct {
	Name string
	Tags []string
}

type walkOuter struct {
	Title  string
	N      int
	Inner  walkInner
	Ptr    *walkInner
	Args   map[string]any
	List   []walkInner
	Arr    [2]string
	Any    any
	hidden string
}

func TestMapStringsEveryPlace(t *testing.T) {
	in := &walkOuter{
		Title:  "a\x1b",
		N:      3,
		Inner:  walkInner{Name: "b\x1b", Tags: []string{"ok", "c\x1b"}},
		Ptr:    &walkInner{Name: "d\x1b"},
		Args:   map[string]any{"k\x1b": []any{"e\x1b", map[string]any{"x": "f\x1b"}, 1.5}},
		List:   []walkInner{{Name: "g\x1b"}},
		Arr:    [2]string{"h\x1b", "fine"},
		Any:    "i\x1b",
		hidden: "j\x1b",
	}
	orig := *in
	origPtr := *in.Ptr
	out := MapStrings(in, Line)
	if out == in {
		t.Fatal("a changed value came back as the same pointer")
	}
	var seen []string
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			seen = append(seen, v.String())
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice, reflect.Array:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(it.Key())
				walk(it.Value())
			}
		}
	}
	walk(reflect.ValueOf(out))
	if len(seen) < 10 {
		t.Fatalf("walked only %d strings: %q", len(seen), seen)
	}
	for _, s := range seen {
		if strings.Contains(s, "\x1b") {
			t.Errorf("ESC survived in %q", s)
		}
	}
	if out.hidden != "j\x1b" {
		t.Errorf("unexported field changed: %q", out.hidden)
	}
	// The input is untouched.
	if in.Title != orig.Title || in.Inner.Tags[1] != "c\x1b" || in.Ptr.Name != origPtr.Name ||
		in.Args["k\x1b"].([]any)[0] != "e\x1b" || in.List[0].Name != "g\x1b" || in.Arr[0] != "h\x1b" {
		t.Errorf("the input was changed: %+v", in)
	}
}

func TestMapStringsUnchangedIsSame(t *testing.T) {
	in := &walkOuter{Title: "plain", Args: map[string]any{"k": "v"}, List: []walkInner{{Name: "n"}}}
	if out := MapStrings(in, Text); out != in {
		t.Fatal("an unchanged value was copied")
	}
	allocs := testing.AllocsPerRun(100, func() { MapStrings(in, Text) })
	if allocs > 4 { // the walk itself (reflect), never a copy of the value
		t.Errorf("%v allocations for a value that needs no change", allocs)
	}
}

func TestClipboard(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain text\n\tindented", "plain text\n\tindented"},
		{"echo hi\x1b[201~rm -rf ~\n", "echo hi[201~rm -rf ~\n"},
		{"a\r\nb\rc\x08d\x07e\x7f", "a\nbcde"},
		{"x\u009b31my\u202ez\u2066", "x31myz"},
		{"bad\xffutf8", "badutf8"},
		{"résumé ✓ 日本", "résumé ✓ 日本"},
	} {
		if got := Clipboard(c.in); got != c.want {
			t.Errorf("Clipboard(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestMapStringsMapOfStructs: a map whose values are structs keeps every
// entry, changed or not.
func TestMapStringsMapOfStructs(t *testing.T) {
	in := map[string]walkInner{"a": {Name: "plain"}, "b": {Name: "esc\x1b"}}
	out := MapStrings(in, Text)
	if len(out) != 2 || out["a"].Name != "plain" || out["b"].Name != "esc␛" {
		t.Fatalf("got %+v", out)
	}
}
