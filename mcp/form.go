package mcp

import (
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Field kinds of a form (FormField.Kind): what an elicitation's requested
// schema may ask for.
const (
	FieldString  = "string"
	FieldNumber  = "number"
	FieldInteger = "integer"
	FieldBoolean = "boolean"
	FieldSelect  = "select"      // one of Options (enum, enum+enumNames, oneOf)
	FieldMulti   = "multiselect" // any of Options (type array, items enum or anyOf)
)

// FormOption is one choice of a select or multiselect field: the value
// sent, and what the person reads ("" when the schema gives no title).
type FormOption struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// FormField is one field of a form, read from one property of the
// requested schema. Defaults are text, as the form edits them: a number as
// written, a boolean as "true" or "false", a select's option value.
type FormField struct {
	Name        string       `json:"name"`
	Title       string       `json:"title,omitempty"`
	Description string       `json:"description,omitempty"`
	Kind        string       `json:"kind"`
	Format      string       `json:"format,omitempty"` // email, uri, date, date-time, password
	Secret      bool         `json:"secret,omitempty"` // format password or writeOnly: never shown, never logged
	Required    bool         `json:"required,omitempty"`
	Options     []FormOption `json:"options,omitempty"`
	HasDefault  bool         `json:"has_default,omitempty"`
	Default     string       `json:"default,omitempty"`  // the default of a single value
	Defaults    []string     `json:"defaults,omitempty"` // the default of a multiselect
	MinLength   *int         `json:"min_length,omitempty"`
	MaxLength   *int         `json:"max_length,omitempty"`
	Pattern     string       `json:"pattern,omitempty"`
	Minimum     *float64     `json:"minimum,omitempty"`
	Maximum     *float64     `json:"maximum,omitempty"`
	MinItems    *int         `json:"min_items,omitempty"`
	MaxItems    *int         `json:"max_items,omitempty"`
}

// Label is what the form calls the field: its title, else its name.
func (f FormField) Label() string {
	if f.Title != "" {
		return f.Title
	}
	return f.Name
}

// ParseForm reads the fields of an elicitation's requested schema: an
// object whose properties are strings (with format hints and length or
// pattern limits), numbers, integers, booleans, single-select enums
// (enum, enum with enumNames, oneOf of const and title) and multi-select
// arrays (items enum or anyOf). Required fields come first, then the
// others, each by name: the order the server wrote them in is not known
// (mcp-go hands the schema over as a map). A property of any other shape
// is an error that names it.
func ParseForm(schema map[string]any) ([]FormField, error) {
	if t, ok := schema["type"]; ok && t != "object" {
		return nil, fmt.Errorf("the requested schema is of type %v, not an object", t)
	}
	props, _ := schema["properties"].(map[string]any)
	if len(props) == 0 {
		return nil, fmt.Errorf("the requested schema has no fields")
	}
	required := map[string]bool{}
	for _, r := range asList(schema["required"]) {
		if s, ok := r.(string); ok {
			required[s] = true
		}
	}
	out := make([]FormField, 0, len(props))
	for name, raw := range props {
		p, ok := raw.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("field %q is not a schema", name)
		}
		f, err := parseField(name, p)
		if err != nil {
			return nil, fmt.Errorf("field %q: %v", name, err)
		}
		f.Required = required[name]
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Required != out[j].Required {
			return out[i].Required
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

// parseField reads one property.
func parseField(name string, p map[string]any) (FormField, error) {
	f := FormField{Name: name, Title: str(p["title"]), Description: str(p["description"])}
	typ := str(p["type"])
	switch {
	case typ == "array":
		return multiField(f, p)
	case p["enum"] != nil || p["oneOf"] != nil:
		return selectField(f, p, typ)
	}
	switch typ {
	case "string":
		f.Kind, f.Format, f.Pattern = FieldString, str(p["format"]), str(p["pattern"])
		f.MinLength, f.MaxLength = intPtr(p["minLength"]), intPtr(p["maxLength"])
		f.Secret = f.Format == "password" || p["writeOnly"] == true
	case "number", "integer":
		f.Kind = typ
		f.Minimum, f.Maximum = floatPtr(p["minimum"]), floatPtr(p["maximum"])
	case "boolean":
		f.Kind = FieldBoolean
	default:
		return f, fmt.Errorf("type %q is not one a form can ask for", typ)
	}
	if d, ok := p["default"]; ok {
		f.Default, f.HasDefault = scalarText(d)
	}
	return f, nil
}

// selectField reads a single-select enum: enum (with enumNames as titles)
// or oneOf of {const, title}.
func selectField(f FormField, p map[string]any, typ string) (FormField, error) {
	if typ != "" && typ != "string" {
		return f, fmt.Errorf("an enum of type %q is not one a form can ask for", typ)
	}
	opts, err := options(p, "oneOf")
	if err != nil {
		return f, err
	}
	f.Kind, f.Options = FieldSelect, opts
	if d, ok := p["default"].(string); ok && f.option(d) {
		f.Default, f.HasDefault = d, true
	}
	return f, nil
}

// multiField reads a multi-select: an array whose items are an enum or
// anyOf of {const, title}.
func multiField(f FormField, p map[string]any) (FormField, error) {
	items, _ := p["items"].(map[string]any)
	if items == nil {
		return f, fmt.Errorf("an array without items is not one a form can ask for")
	}
	opts, err := options(items, "anyOf")
	if err != nil {
		return f, err
	}
	f.Kind, f.Options = FieldMulti, opts
	f.MinItems, f.MaxItems = intPtr(p["minItems"]), intPtr(p["maxItems"])
	if _, ok := p["default"]; ok {
		for _, d := range asList(p["default"]) {
			if s, ok := d.(string); ok && f.option(s) && !slices.Contains(f.Defaults, s) {
				f.Defaults = append(f.Defaults, s)
			}
		}
		f.HasDefault = true
	}
	return f, nil
}

// options reads the choices of p: enum (titled by enumNames, if any) or
// the list under titled ({const, title} each).
func options(p map[string]any, titled string) ([]FormOption, error) {
	var out []FormOption
	if enum := asList(p["enum"]); len(enum) > 0 {
		names := asList(p["enumNames"])
		for i, v := range enum {
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("enum value %v is not a string", v)
			}
			o := FormOption{Value: s}
			if i < len(names) {
				o.Title = str(names[i])
			}
			out = append(out, o)
		}
		return out, nil
	}
	for _, raw := range asList(p[titled]) {
		c, _ := raw.(map[string]any)
		s, ok := c["const"].(string)
		if !ok {
			return nil, fmt.Errorf("a %s choice without a string const", titled)
		}
		out = append(out, FormOption{Value: s, Title: str(c["title"])})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("a choice without options")
	}
	return out, nil
}

// option reports whether v is one of the field's option values.
func (f FormField) option(v string) bool {
	return slices.ContainsFunc(f.Options, func(o FormOption) bool { return o.Value == v })
}

// FormDefaults is the content of a form whose every field is left at its
// default (SEP-1034): each field with a default, as its value.
func FormDefaults(fields []FormField) map[string]any {
	out := map[string]any{}
	for _, f := range fields {
		if !f.HasDefault {
			continue
		}
		if f.Kind == FieldMulti {
			out[f.Name] = slices.Clone(f.Defaults)
			continue
		}
		if v, problem := f.Parse(f.Default); problem == "" {
			out[f.Name] = v
		}
	}
	return out
}

// Parse turns the text of a field as the form holds it into the value
// content carries: a string, a float64, an int64, a bool or, for a
// select, the option's value. It says what is wrong when the text is not
// one (not a number, not a whole number).
func (f FormField) Parse(text string) (any, string) {
	switch f.Kind {
	case FieldNumber:
		n, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			return nil, "not a number"
		}
		return n, ""
	case FieldInteger:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil {
			return nil, "not a whole number"
		}
		return n, ""
	case FieldBoolean:
		return text == "true", ""
	}
	return text, ""
}

// CheckForm says what is wrong with content for the fields, by field name
// (a key no field has is named too); empty when it is fine.
func CheckForm(fields []FormField, content map[string]any) map[string]string {
	out := map[string]string{}
	known := map[string]bool{}
	for _, f := range fields {
		known[f.Name] = true
		v, ok := content[f.Name]
		if !ok {
			if f.Required {
				out[f.Name] = "required"
			}
			continue
		}
		if p := f.Check(v); p != "" {
			out[f.Name] = p
		}
	}
	for k := range content {
		if !known[k] {
			out[k] = "not a field of this form"
		}
	}
	return out
}

// Check says what is wrong with v as the field's value, "" when nothing.
func (f FormField) Check(v any) string {
	switch f.Kind {
	case FieldString:
		s, ok := v.(string)
		if !ok {
			return "not text"
		}
		return f.checkString(s)
	case FieldNumber, FieldInteger:
		n, ok := number(v)
		if !ok || f.Kind == FieldInteger && n != math.Trunc(n) {
			return map[string]string{FieldNumber: "not a number", FieldInteger: "not a whole number"}[f.Kind]
		}
		return f.checkRange(n)
	case FieldBoolean:
		if _, ok := v.(bool); !ok {
			return "not yes or no"
		}
	case FieldSelect:
		if s, ok := v.(string); !ok || !f.option(s) {
			return "not one of the choices"
		}
	case FieldMulti:
		return f.checkMulti(v)
	}
	return ""
}

func (f FormField) checkString(s string) string {
	n := utf8.RuneCountInString(s)
	switch {
	case f.Required && s == "":
		return "required"
	case f.MinLength != nil && n < *f.MinLength:
		return fmt.Sprintf("at least %d characters", *f.MinLength)
	case f.MaxLength != nil && n > *f.MaxLength:
		return fmt.Sprintf("at most %d characters", *f.MaxLength)
	case f.Pattern != "" && !matchPattern(f.Pattern, s):
		return "does not match the pattern " + f.Pattern
	}
	return checkFormat(f.Format, s)
}

// matchPattern matches s against a schema pattern; a pattern Go cannot
// read does not hold the form up (the server checks it again).
func matchPattern(pattern, s string) bool {
	re, err := regexp.Compile(pattern)
	return err != nil || re.MatchString(s)
}

// checkFormat checks the format hints a form knows.
func checkFormat(format, s string) string {
	var ok bool
	switch format {
	case "email":
		a, err := mail.ParseAddress(s)
		ok = err == nil && a.Address == s
	case "uri":
		u, err := url.Parse(s)
		ok = err == nil && u.Scheme != "" && (u.Host != "" || u.Opaque != "")
	case "date":
		_, err := time.Parse(time.DateOnly, s)
		ok = err == nil
	case "date-time":
		_, err := time.Parse(time.RFC3339, s)
		ok = err == nil
	default:
		return ""
	}
	if !ok {
		return "not " + FormatHint(format)
	}
	return ""
}

// FormatHint is how a form describes a format: "an email address", "a
// date (YYYY-MM-DD)"; "" for formats it does not check.
func FormatHint(format string) string {
	return map[string]string{
		"email":     "an email address",
		"uri":       "a URI (https://…)",
		"date":      "a date (YYYY-MM-DD)",
		"date-time": "a date and time (YYYY-MM-DDThh:mm:ssZ)",
	}[format]
}

func (f FormField) checkRange(n float64) string {
	switch {
	case f.Minimum != nil && n < *f.Minimum:
		return "at least " + strconv.FormatFloat(*f.Minimum, 'f', -1, 64)
	case f.Maximum != nil && n > *f.Maximum:
		return "at most " + strconv.FormatFloat(*f.Maximum, 'f', -1, 64)
	}
	return ""
}

func (f FormField) checkMulti(v any) string {
	var picked []string
	switch l := v.(type) {
	case []string:
		picked = l
	case []any:
		for _, x := range l {
			s, ok := x.(string)
			if !ok {
				return "not a list of choices"
			}
			picked = append(picked, s)
		}
	default:
		return "not a list of choices"
	}
	seen := map[string]bool{}
	for _, s := range picked {
		if !f.option(s) || seen[s] {
			return "not a list of the choices"
		}
		seen[s] = true
	}
	switch {
	case f.Required && len(picked) == 0:
		return "required"
	case f.MinItems != nil && len(picked) < *f.MinItems:
		return fmt.Sprintf("pick at least %d", *f.MinItems)
	case f.MaxItems != nil && len(picked) > *f.MaxItems:
		return fmt.Sprintf("pick at most %d", *f.MaxItems)
	}
	return ""
}

// number reads a JSON number as Go holds it after decoding or building.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	}
	return 0, false
}

// scalarText is a default as a form's text: a string as is, a number as
// written, a boolean as "true"/"false".
func scalarText(v any) (string, bool) {
	switch d := v.(type) {
	case string:
		return d, true
	case bool:
		return strconv.FormatBool(d), true
	}
	if n, ok := number(v); ok {
		return strconv.FormatFloat(n, 'f', -1, 64), true
	}
	return "", false
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func asList(v any) []any {
	switch l := v.(type) {
	case []any:
		return l
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out
	}
	return nil
}

func intPtr(v any) *int {
	if n, ok := number(v); ok {
		i := int(n)
		return &i
	}
	return nil
}

func floatPtr(v any) *float64 {
	if n, ok := number(v); ok {
		return &n
	}
	return nil
}
