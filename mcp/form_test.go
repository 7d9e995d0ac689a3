package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
)

// TestParseFormEveryKind reads a schema with every kind of field: kinds,
// formats, options with and without titles, limits, required fields first.
func TestParseFormEveryKind(t *testing.T) {
	fields, err := ParseForm(mcptestutil.FormSchema(""))
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]FormField{}
	var names []string
	for _, f := range fields {
		by[f.Name] = f
		names = append(names, f.Name)
	}
	if want := []string{"email", "name", "age", "agree", "birthday", "color", "fish", "hero", "homepage", "meeting", "pet", "pin", "score", "tools"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("order %v, want %v (required first, then by name)", names, want)
	}
	for name, kind := range map[string]string{"name": FieldString, "email": FieldString, "score": FieldNumber, "age": FieldInteger,
		"agree": FieldBoolean, "color": FieldSelect, "pet": FieldSelect, "hero": FieldSelect, "tools": FieldMulti, "fish": FieldMulti} {
		if by[name].Kind != kind {
			t.Errorf("%s: kind %q, want %q", name, by[name].Kind, kind)
		}
	}
	if f := by["pin"]; !f.Secret || f.Format != "password" {
		t.Errorf("pin is not secret: %+v", f)
	}
	if f := by["pet"]; f.Options[1] != (FormOption{Value: "pet-2", Title: "Dogs"}) {
		t.Errorf("enumNames: %+v", f.Options)
	}
	if f := by["fish"]; f.Options[0] != (FormOption{Value: "fish-1", Title: "Tuna"}) {
		t.Errorf("anyOf: %+v", f.Options)
	}
	if f := by["name"]; !f.Required || *f.MinLength != 2 || *f.MaxLength != 40 || f.Label() != "Name" {
		t.Errorf("name: %+v", f)
	}
	if f := by["age"]; *f.Minimum != 1 || *f.Maximum != 120 || f.Default != "30" {
		t.Errorf("age: %+v", f)
	}
}

// TestFormDefaults is SEP-1034: a form left as it is sends every default,
// typed as the schema says.
func TestFormDefaults(t *testing.T) {
	fields, err := ParseForm(mcptestutil.FormSchema(""))
	if err != nil {
		t.Fatal(err)
	}
	got := FormDefaults(fields)
	want := map[string]any{"score": 7.5, "age": int64(30), "agree": true, "color": "green", "hero": "hero-2", "tools": []string{"saw"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults %#v, want %#v", got, want)
	}
	b, _ := json.Marshal(got)
	if !strings.Contains(string(b), `"age":30`) || !strings.Contains(string(b), `"agree":true`) {
		t.Errorf("on the wire: %s", b)
	}
}

// TestCheckForm: what a form's content may not be.
func TestCheckForm(t *testing.T) {
	fields, err := ParseForm(mcptestutil.FormSchema(""))
	if err != nil {
		t.Fatal(err)
	}
	ok := map[string]any{"name": "Ada", "email": "ada@example.com", "homepage": "https://ada.example", "birthday": "1815-12-10",
		"meeting": "2026-12-01T10:00:00Z", "score": 7.5, "age": int64(36), "agree": true, "color": "red", "pet": "pet-1",
		"hero": "hero-1", "tools": []any{"saw", "drill"}, "fish": []string{"fish-2"}, "pin": "1234"}
	if p := CheckForm(fields, ok); len(p) != 0 {
		t.Fatalf("a good form has problems: %v", p)
	}
	for _, c := range []struct {
		field string
		value any
		want  string
	}{
		{"name", "A", "at least 2 characters"},
		{"name", "", "required"},
		{"email", "not-an-address", "not an email address"},
		{"homepage", "ada.example", "not a URI"},
		{"birthday", "10/12/1815", "not a date"},
		{"meeting", "tomorrow", "not a date and time"},
		{"score", 11.0, "at most 10"},
		{"age", 2.5, "not a whole number"},
		{"age", int64(0), "at least 1"},
		{"agree", "yes", "not yes or no"},
		{"color", "purple", "not one of the choices"},
		{"tools", []any{}, "pick at least 1"},
		{"tools", []any{"saw", "drill", "hammer"}, "pick at most 2"},
		{"fish", []any{"fish-9"}, "not a list of the choices"},
		{"extra", "x", "not a field of this form"},
	} {
		content := map[string]any{}
		for k, v := range ok {
			content[k] = v
		}
		content[c.field] = c.value
		if p := CheckForm(fields, content)[c.field]; !strings.HasPrefix(p, c.want) {
			t.Errorf("%s = %#v: %q, want %q", c.field, c.value, p, c.want)
		}
	}
	delete(ok, "email")
	if p := CheckForm(fields, ok); p["email"] != "required" {
		t.Errorf("a missing required field: %v", p)
	}
}

// TestParseFormRefuses names the field latch cannot show.
func TestParseFormRefuses(t *testing.T) {
	for _, c := range []struct {
		schema map[string]any
		want   string
	}{
		{map[string]any{"type": "array"}, "not an object"},
		{map[string]any{"type": "object"}, "no fields"},
		{map[string]any{"properties": map[string]any{"where": map[string]any{"type": "object"}}}, `field "where": type "object"`},
		{map[string]any{"properties": map[string]any{"n": map[string]any{"type": "integer", "enum": []any{1, 2}}}}, `field "n": an enum of type "integer"`},
		{map[string]any{"properties": map[string]any{"l": map[string]any{"type": "array"}}}, `field "l": an array without items`},
	} {
		if _, err := ParseForm(c.schema); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.schema, err, c.want)
		}
	}
}
