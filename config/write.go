package config

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
)

// DefaultPath is where latch's own config lives when no file was
// loaded: $XDG_CONFIG_HOME/latch/config.json, XDG_CONFIG_HOME defaulting
// to ~/.config. "" when neither is known.
func DefaultPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) { // unset or relative: the XDG spec says ignore it
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "latch", "config.json")
}

// Target is the file latch writes its settings into: the config
// that was loaded, else the default path; absolute, and a link's target.
// A file of another app's shape is refused, saying how to have one of
// latch's own (why: "to keep a default model").
func Target(cfg *Config, getenv func(string) string, why string) (string, error) {
	path := cfg.Path
	if path == "" {
		path = DefaultPath(getenv)
		if path == "" {
			return "", errors.New("no config file to write to: HOME is not set")
		}
	}
	if cfg.Foreign {
		imp, _ := jsonValue(path)
		return "", fmt.Errorf("%s is another app's config file, which latch does not change; "+
			"%s, give latch its own config that imports it (e.g. %s holding {\"import\": %s}) and load it with --config",
			path, why, cmp.Or(DefaultPath(getenv), "~/.config/latch/config.json"), imp)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs // the notice says where, wherever latch was started
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // replace the file the link points to, not the link
	}
	return path, nil
}

// WithModel returns the JSON object data with its top-level "model" set to
// name: the old value replaced where it stands, or the key added first,
// indented like the key that follows it. Nothing else changes.
func WithModel(data []byte, name string) ([]byte, error) {
	value, err := jsonValue(name)
	if err != nil {
		return nil, err
	}
	return withKey(data, "model", value)
}

// jsonValue is v as JSON, on one line, with no HTML escapes.
func jsonValue(v any) ([]byte, error) {
	var val bytes.Buffer
	enc := json.NewEncoder(&val)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(val.Bytes()), nil
}

// withKey returns the JSON object data with its top-level key set to the
// JSON value: the old value replaced where it stands, or the key added
// first, indented like the key that follows it. Nothing else changes.
func withKey(data []byte, key string, value []byte) ([]byte, error) {
	bom := []byte("\xef\xbb\xbf")
	hasBOM := bytes.HasPrefix(data, bom)
	body := bytes.TrimPrefix(data, bom)
	name, _ := jsonValue(key)
	if len(bytes.TrimSpace(body)) == 0 {
		return append(append(append(append([]byte("{\n  "), name...), ": "...), value...), "\n}\n"...), nil
	}
	start, end, open, err := keySpan(body, key)
	if err != nil {
		return nil, err
	}
	var out []byte
	if hasBOM {
		out = append(out, bom...)
	}
	if start >= 0 { // replace the value
		out = append(out, body[:start]...)
		out = append(out, value...)
		return append(out, body[end:]...), nil
	}
	// Add the key after "{", with the white space that precedes the first key.
	rest := body[open:]
	ws := rest[:len(rest)-len(bytes.TrimLeft(rest, " \t\r\n"))]
	out = append(out, body[:open]...)
	if bytes.HasPrefix(bytes.TrimLeft(rest, " \t\r\n"), []byte("}")) {
		out = append(append(append(append(out, ' '), name...), ": "...), value...)
		out = append(out, ' ')
		return append(out, rest[len(ws):]...), nil
	}
	out = append(append(append(append(out, ws...), name...), ": "...), value...)
	out = append(out, ',')
	return append(out, rest...), nil
}

// keySpan finds, in a JSON object (comments allowed), the byte span of the top-level key's
// value (start -1 when there is none) and the offset just after the
// opening brace.
func keySpan(data []byte, key string) (start, end, open int, err error) {
	data = standardOr(data) // comments as spaces: the same offsets (jsonc.go)
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return 0, 0, 0, errors.New("not a JSON object")
	}
	open = int(dec.InputOffset())
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return 0, 0, 0, err
		}
		afterKey := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, 0, err
		}
		if k == key {
			end = int(dec.InputOffset())
			colon := bytes.IndexByte(data[afterKey:end], ':')
			if colon < 0 {
				return 0, 0, 0, errors.New("not a JSON object")
			}
			start = afterKey + colon + 1
			start += len(data[start:end]) - len(bytes.TrimLeft(data[start:end], " \t\r\n"))
			return start, end, open, nil
		}
	}
	return -1, -1, open, nil
}
