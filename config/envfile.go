package config

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// envFile reads VS Code's "envFile" of a server: the file's variables join
// the server's env, where env does not set the same name (env wins). The
// path may use ${workspaceFolder} and ${env:NAME}; a relative one is the
// workspace's. A file that cannot be read or parsed is an error naming it:
// the server would start without the variables it was given.
func (l *loader) envFile(srv string, obj map[string]json.RawMessage) {
	raw, ok := obj["envFile"]
	if !ok {
		return
	}
	delete(obj, "envFile")
	if !l.want(srv, "envFile", raw, "string", "a file name") {
		return
	}
	var p string
	_ = json.Unmarshal(raw, &p)
	p = vscodeVar.ReplaceAllStringFunc(p, func(m string) string {
		switch sub := vscodeVar.FindStringSubmatch(m); sub[1] {
		case "env":
			return l.getenv(sub[2])
		case "workspaceFolder":
			return l.workspace()
		}
		return m
	})
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.workspace(), p)
	}
	if _, err := os.Stat(p); err == nil && !l.trusted(p) { // it chooses the server's environment
		return
	}
	vars, err := readEnvFile(p)
	if err != nil {
		l.errorf(srv, "envFile", "%v", err)
		return
	}
	env := map[string]string{}
	if e := obj["env"]; e != nil && json.Unmarshal(e, &env) != nil {
		return // env's own error is said where env is read
	}
	for k, v := range vars {
		if _, set := env[k]; !set {
			env[k] = v
		}
	}
	b, _ := json.Marshal(env)
	obj["env"] = b
}

// envName is a variable's name in an env file.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// readEnvFile reads a dotenv file: NAME=VALUE lines, an optional "export "
// before the name, blank lines and # comments; a value in single quotes is
// taken as it is, one in double quotes with \n, \t, \" and \\ escapes, a
// bare one up to a " #" comment, trimmed. A line that is none of these is
// an error naming its number (never its text: it may hold a secret).
func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, errUnwrap(err))
	}
	defer func() { _ = f.Close() }() // read only
	vars := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || !envName.MatchString(name) {
			return nil, fmt.Errorf("%s line %d: expected NAME=VALUE", path, n)
		}
		v, err := envValue(strings.TrimSpace(value))
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %s", path, n, err)
		}
		vars[name] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	return vars, nil
}

// envValue is the value of an env file's line, unquoted.
func envValue(v string) (string, error) {
	switch {
	case strings.HasPrefix(v, "'"):
		end := strings.Index(v[1:], "'")
		if end < 0 {
			return "", fmt.Errorf("a quote (') is not closed")
		}
		return v[1 : end+1], nil
	case strings.HasPrefix(v, `"`):
		for i := 1; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case '"':
				s, err := strconv.Unquote(v[:i+1])
				if err != nil {
					return "", fmt.Errorf("a quoted value has an escape latch does not know")
				}
				return s, nil
			}
		}
		return "", fmt.Errorf(`a quote (") is not closed`)
	}
	if i := strings.Index(v, " #"); i >= 0 {
		v = v[:i]
	}
	return strings.TrimSpace(v), nil
}

// errUnwrap is the reason of a file error without its path (said already).
func errUnwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
