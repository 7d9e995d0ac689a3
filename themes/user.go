package themes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"latch/words"
)

// maxThemeFile bounds a user theme file; a palette is a few hundred bytes.
const maxThemeFile = 64 << 10

// glamourStyles are glamour's built-in style names, the values a theme's
// "glamour" token may take.
var glamourStyles = []string{"ascii", "dark", "dracula", "light", "notty", "pink", "tokyo-night"}

// ConfigHome returns the XDG config directory: $XDG_CONFIG_HOME when it is
// an absolute path (the XDG spec says to ignore a relative one), else
// $HOME/.config, else "".
func ConfigHome(getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		return dir
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".config")
	}
	return ""
}

// Dir returns the folder of user themes under configHome:
// configHome/latch/themes. It is "" when configHome is.
func Dir(configHome string) string {
	if configHome == "" {
		return ""
	}
	return filepath.Join(configHome, "latch", "themes")
}

// Available lists every theme name the user can pick, sorted: the
// built-ins (as Names) and the user themes in Dir(configHome), each NAME.json
// giving NAME. User files named like a built-in are left out (the built-in
// wins), and so are names that are not usable as a theme name. Files are
// not parsed, so a listed user theme may still fail to load. A missing or
// unreadable folder lists the built-ins only.
func Available(configHome string) []string {
	names := Names()
	for _, n := range userNames(configHome) {
		if !slices.Contains(names, n) && !isAlias(n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// userNames lists the NAME of each NAME.json in Dir(configHome).
func userNames(configHome string) []string {
	dir := Dir(configHome)
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		n, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !validName(n) || e.IsDir() {
			continue
		}
		names = append(names, n)
	}
	return names
}

// isAlias reports whether name (any case) is taken by a built-in.
func isAlias(name string) bool {
	switch k := strings.ToLower(name); k {
	case "auto", "high-contrast", "mono", "no-color":
		return true
	default:
		_, ok := builtin[k]
		return ok
	}
}

// validName reports whether name can be a user theme's name: a plain file
// name, so "--theme ../x" cannot reach outside the themes folder.
var validName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.+-]*$`).MatchString

// ThemeError is one problem in a user theme file. LoadFile returns them
// joined (errors.Join), so errors.As finds the first.
type ThemeError struct {
	File  string // the theme file's path
	Line  int    // 1-based; 0 when the problem has no one place
	Col   int    // 1-based; 0 with Line
	Token string // the token concerned, "" for the file as a whole
	Msg   string
}

// Error renders the problem as "theme FILE:LINE:COL: token "T": MSG".
func (e *ThemeError) Error() string {
	var b strings.Builder
	b.WriteString("theme ")
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	b.WriteString(": ")
	if e.Token != "" {
		fmt.Fprintf(&b, "token %q: ", e.Token)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// LoadFile reads the user theme at path. The file is one JSON object of
// palette tokens, for example
//
//	{"base": "dark", "accent": "12", "user": "#87d787", "glamour": "dark"}
//
// Colour tokens (text, muted, subtle, accent, user, assistant, error,
// warning, success, status_fg, status_bg, border) take a string: "#rgb",
// "#rrggbb" or an ANSI index "0"–"255". "dark" and "bold" take a boolean,
// "glamour" one of glamour's built-in styles. "base" names a built-in theme
// whose tokens fill the ones the file leaves out ("mono" too: the theme is
// then monochrome, and takes no colour token); without it the base is
// "auto", so a theme stays valid when latch adds tokens. "auto" and
// "high-contrast" pick their dark or light variant by the file's "dark"
// token, else by darkBackground. A "dark" that differs from the base's
// also switches the inherited glamour style to "dark" or "light". The theme is named after the
// file. Every problem (invalid JSON with line:col, an unknown or duplicate
// token with a suggestion, a wrong JSON type, a value that is not a colour)
// is reported, each a *ThemeError naming the file and token.
func LoadFile(path string, darkBackground bool) (Palette, error) {
	f, err := openRegular(path)
	if err != nil {
		return Palette{}, err
	}
	defer func() { _ = f.Close() }() // read only: nothing to lose on close
	data, err := io.ReadAll(io.LimitReader(f, maxThemeFile+1))
	if err != nil {
		return Palette{}, fmt.Errorf("theme %s: %w", path, err)
	}
	if len(data) > maxThemeFile {
		return Palette{}, &ThemeError{File: path, Msg: fmt.Sprintf("larger than %d KiB; a theme is a small JSON object", maxThemeFile>>10)}
	}
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	return parse(path, name, data, darkBackground)
}

// openRegular opens path for reading if it is a regular file (or a link
// to one). Anything else is refused before it is read: a FIFO would block
// the open, or the read, until something writes to it, and a device may
// never end. The check is on the open file, so the file cannot be swapped
// between the check and the read.
func openRegular(path string) (*os.File, error) {
	if st, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("theme %s: %w", path, err)
	} else if !st.Mode().IsRegular() {
		return nil, &ThemeError{File: path, Msg: "not a regular file; a theme is a small JSON file"}
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, fmt.Errorf("theme %s: %w", path, err)
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = &ThemeError{File: path, Msg: "not a regular file; a theme is a small JSON file"}
	}
	if err != nil {
		_ = f.Close() // opened to read, not yet read
		return nil, err
	}
	return f, nil
}

// field is one settable token of a Palette.
type field struct {
	token string
	index int
	kind  reflect.Kind // reflect.String (a colour, or glamour) or reflect.Bool
}

// fields are the Palette's tokens, from its token tags, in field order.
var fields = func() []field {
	var fs []field
	t := reflect.TypeFor[Palette]()
	for i := range t.NumField() {
		if tok := t.Field(i).Tag.Get("token"); tok != "" {
			fs = append(fs, field{token: tok, index: i, kind: t.Field(i).Type.Kind()})
		}
	}
	return fs
}()

// tokenNames are every key a theme file may use, sorted.
var tokenNames = func() []string {
	names := []string{"base"}
	for _, f := range fields {
		names = append(names, f.token)
	}
	slices.Sort(names)
	return names
}()

// entry is one key of a theme file with its raw value and the positions
// of both.
type entry struct {
	key             string
	raw             json.RawMessage
	line, col       int // of the value
	keyLine, keyCol int
}

// parse validates data, the theme file path, and builds the palette
// called name: the base first (the file's tokens are laid over it), then
// every token, then the errors of both in file order.
func parse(path, name string, data []byte, darkBackground bool) (Palette, error) {
	entries, err := readObject(path, data)
	if err != nil {
		return Palette{}, err
	}
	tp := &themeParser{path: path}
	base, dark, darkSet := tp.base(entries, darkBackground)
	p := base
	p.Name = name
	glamourSet := false
	v := reflect.ValueOf(&p).Elem()
	for i, e := range entries {
		if slices.ContainsFunc(entries[:i], func(o entry) bool { return o.key == e.key }) || e.key == "base" || e.key == "dark" {
			continue // reported or applied by base
		}
		glamourSet = tp.token(e, v, base.Mono) || glamourSet
	}
	if err := tp.err(); err != nil {
		return Palette{}, err
	}
	if darkSet && !glamourSet && dark != base.Dark {
		// The base's markdown style was made for the other background.
		p.Glamour = "light"
		if dark {
			p.Glamour = "dark"
		}
	}
	if darkSet {
		p.Dark = dark
	}
	return p, nil
}

// themeParser collects the errors of one theme file.
type themeParser struct {
	path string
	errs []error
}

// bad reports a bad value.
func (tp *themeParser) bad(e entry, format string, args ...any) {
	tp.errs = append(tp.errs, &ThemeError{File: tp.path, Line: e.line, Col: e.col, Token: e.key, Msg: fmt.Sprintf(format, args...)})
}

// badKey reports a bad key.
func (tp *themeParser) badKey(e entry, format string, args ...any) {
	tp.errs = append(tp.errs, &ThemeError{File: tp.path, Line: e.keyLine, Col: e.keyCol, Token: e.key, Msg: fmt.Sprintf(format, args...)})
}

// err is every error found, in file order.
func (tp *themeParser) err() error {
	slices.SortStableFunc(tp.errs, func(a, b error) int {
		ea, eb := a.(*ThemeError), b.(*ThemeError)
		if ea.Line != eb.Line {
			return ea.Line - eb.Line
		}
		return ea.Col - eb.Col
	})
	return errors.Join(tp.errs...)
}

// base reads "base" and "dark" (and reports duplicate keys), and returns
// the base palette: an adaptive base ("auto", "high-contrast") follows the
// file's "dark", else the terminal.
func (tp *themeParser) base(entries []entry, darkBackground bool) (base Palette, dark, darkSet bool) {
	baseName := ""
	dark = darkBackground
	seen := map[string]bool{}
	for _, e := range entries {
		if seen[e.key] {
			tp.badKey(e, "duplicate token")
			continue
		}
		seen[e.key] = true
		switch e.key {
		case "base":
			if s, ok := tp.baseName(e, darkBackground); ok {
				baseName = s
			}
		case "dark":
			b, ok := asBool(e.raw)
			if !ok {
				tp.bad(e, "want true or false, got %s", kindWithArticle(e.raw))
				continue
			}
			dark, darkSet = b, true
		}
	}
	base, _ = Lookup(baseName, dark) // "" is "auto": dark or light
	return base, dark, darkSet
}

// baseName checks the "base" entry: a built-in theme's name.
func (tp *themeParser) baseName(e entry, darkBackground bool) (string, bool) {
	s, ok := asString(e.raw)
	if !ok {
		tp.bad(e, "want a string naming a built-in theme, got %s", kindWithArticle(e.raw))
		return "", false
	}
	bases := Names()
	if _, err := Lookup(s, darkBackground); err != nil || strings.TrimSpace(s) == "" {
		if sg := words.Suggest(s, bases); sg != "" {
			tp.bad(e, "%q is not a built-in theme; did you mean %q?", s, sg)
		} else {
			tp.bad(e, "%q is not a built-in theme (base is one of %s)", s, strings.Join(bases, ", "))
		}
		return "", false
	}
	return s, true
}

// token sets one token of the palette v from e, or reports why not. It
// says whether it set the glamour style.
func (tp *themeParser) token(e entry, v reflect.Value, mono bool) (glamourSet bool) {
	fi := slices.IndexFunc(fields, func(f field) bool { return f.token == e.key })
	if fi < 0 {
		if sg := words.Suggest(e.key, tokenNames); sg != "" {
			tp.badKey(e, "unknown token; did you mean %q?", sg)
		} else {
			tp.badKey(e, "unknown token (tokens: %s)", strings.Join(tokenNames, ", "))
		}
		return false
	}
	f := fields[fi]
	switch {
	case f.kind == reflect.Bool:
		if b, ok := asBool(e.raw); ok {
			v.Field(f.index).SetBool(b)
		} else {
			tp.bad(e, "want true or false, got %s", kindWithArticle(e.raw))
		}
	case e.key == "glamour":
		if s, ok := tp.glamour(e); ok {
			v.Field(f.index).SetString(s)
			return true
		}
	case mono:
		// Build draws a monochrome palette with attributes only: a colour
		// here would silently do nothing.
		tp.bad(e, "the mono base draws no colour (bold, italic, reverse and the like only); remove this token, or pick a base with colours")
	default:
		if c, ok := tp.colour(e); ok {
			v.Field(f.index).SetString(c)
		}
	}
	return false
}

// glamour checks the "glamour" entry: a glamour style's name.
func (tp *themeParser) glamour(e entry) (string, bool) {
	s, ok := asString(e.raw)
	if !ok {
		tp.bad(e, "want a string naming a glamour style, got %s", kindWithArticle(e.raw))
		return "", false
	}
	if !slices.Contains(glamourStyles, s) {
		if sg := words.Suggest(s, glamourStyles); sg != "" {
			tp.bad(e, "%q is not a glamour style; did you mean %q?", s, sg)
		} else {
			tp.bad(e, "%q is not a glamour style (styles: %s)", s, strings.Join(glamourStyles, ", "))
		}
		return "", false
	}
	return s, true
}

// colour checks a colour token's value and returns it normalised.
func (tp *themeParser) colour(e entry) (string, bool) {
	s, ok := asString(e.raw)
	if !ok {
		hint := ""
		if words.JSONKind(e.raw) == "number" {
			hint = fmt.Sprintf(` (write an ANSI index as a string: "%s")`, bytes.TrimSpace(e.raw))
		}
		tp.bad(e, "want a colour string, got %s%s", kindWithArticle(e.raw), hint)
		return "", false
	}
	c, ok := normaliseColour(s)
	if !ok {
		tp.bad(e, "%q is not a colour (want \"#rgb\", \"#rrggbb\" or an ANSI index \"0\" to \"255\")", s)
		return "", false
	}
	return c, true
}

// readObject splits data, which must be one JSON object, into its entries
// in file order.
func readObject(path string, data []byte) ([]entry, error) {
	syntax := func(offset int64, err error) error {
		line, col := lineCol(data, offset)
		return &ThemeError{File: path, Line: line, Col: col, Msg: "invalid JSON: " + err.Error()}
	}
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			return nil, syntax(se.Offset, se)
		}
		return nil, &ThemeError{File: path, Msg: "invalid JSON: " + fmt.Sprint(err)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, _ := dec.Token(); tok != json.Delim('{') {
		return nil, &ThemeError{File: path, Msg: fmt.Sprintf("want a JSON object of tokens, got %s", kindWithArticle(data))}
	}
	var entries []entry
	// skip returns the offset of the first byte at or after off that is not
	// one of cut: where the next key or value starts.
	skip := func(off int64, cut string) int64 {
		rest := data[off:]
		return off + int64(len(rest)-len(bytes.TrimLeft(rest, cut)))
	}
	for dec.More() {
		keyLine, keyCol := lineCol(data, skip(dec.InputOffset(), " \t\r\n,")+1)
		tok, err := dec.Token()
		if err != nil {
			return nil, syntax(dec.InputOffset(), err)
		}
		key, _ := tok.(string)
		line, col := lineCol(data, skip(dec.InputOffset(), " \t\r\n:")+1)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, syntax(dec.InputOffset(), err)
		}
		entries = append(entries, entry{key: key, raw: raw, line: line, col: col, keyLine: keyLine, keyCol: keyCol})
	}
	return entries, nil
}

// lineCol turns an offset just past the byte of interest (as in a
// json.SyntaxError) into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	o := min(int(offset), len(data))
	if o > 0 {
		o--
	}
	before := data[:o]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return 1 + bytes.Count(before, []byte("\n")), 1 + utf8.RuneCount(before[lineStart:])
}

// asString decodes raw if it is a JSON string.
func asString(raw json.RawMessage) (string, bool) {
	var s string
	if words.JSONKind(raw) != "string" || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// asBool decodes raw if it is a JSON boolean.
func asBool(raw json.RawMessage) (bool, bool) {
	var b bool
	if words.JSONKind(raw) != "boolean" || json.Unmarshal(raw, &b) != nil {
		return false, false
	}
	return b, true
}

// hexColour matches "#rgb" and "#rrggbb".
var hexColour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// normaliseColour checks s is a colour lipgloss takes and returns it in a
// canonical form: "#rrggbb" in lower case, or an ANSI index without
// leading zeros.
func normaliseColour(s string) (string, bool) {
	if hexColour.MatchString(s) {
		s = strings.ToLower(s)
		if len(s) == 4 {
			s = string([]byte{'#', s[1], s[1], s[2], s[2], s[3], s[3]})
		}
		return s, true
	}
	if s == "" || len(s) > 3 || strings.Trim(s, "0123456789") != "" {
		return "", false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 255 {
		return "", false
	}
	return strconv.Itoa(n), true
}

// findUser returns the path of the user theme called name in configHome,
// or "" if there is none.
func findUser(name, configHome string) string {
	dir := Dir(configHome)
	if dir == "" || !validName(name) {
		return ""
	}
	path := filepath.Join(dir, name+".json")
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		return path
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path // there but unreadable: LoadFile reports why
	}
	return ""
}

// kindWithArticle is JSONKind for a message: "a string", "an object",
// "null".
func kindWithArticle(raw []byte) string {
	switch k := words.JSONKind(raw); k {
	case "null", "nothing":
		return k
	case "object", "array":
		return "an " + k
	default:
		return "a " + k
	}
}
