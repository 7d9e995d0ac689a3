package config

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"latch/mcp"
)

// Variables in another app's file, in a server's command, args, env, url
// and headers (and, as VS Code has it, cwd and envFile), expanded once,
// when the file is read:
//
//   - ${NAME} and ${NAME:-default}, as Claude Code and Cursor write them:
//     the variable of latch's environment, or the default when it is unset
//     or empty. Unset with no default is an error naming the variable,
//     the place in the file and the server: the server would start
//     without what it needs (Claude Code refuses such a file too).
//   - ${env:NAME}, as VS Code and Cursor write it: the variable, empty
//     when unset (as in VS Code).
//   - ${workspaceFolder}, ${workspaceFolderBasename}, ${userHome} and
//     ${pathSeparator}; ${input:ID} is asked for at start (inputs.go).
//     Other VS Code names (${file}, ${config:…}, …) stay as written.
//
// Expansion is one pass over the file's text: a value put in is never read
// for variables again, so a variable whose value holds "${OTHER}" or
// "${input:ID}" gives those characters, nothing more. Values are never
// quoted in a message, and one that may be a credential (put in a header,
// or in an env entry or from a variable whose name says it is a token, a
// key, a secret or a password) joins the server's Secrets, redacted
// everywhere as a token_env value is. Other fields (tools, allow, rules,
// mode, timeouts, token_env…) are never expanded: they are the gate's,
// and a variable must not choose what runs unasked.

// refVar is one ${…} reference: a name, then ":" or ":-" and the rest.
var refVar = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-?)?([^}]*)\}`)

// vscodeNames are VS Code's predefined variables other than those latch
// expands: left as written, never read as environment variables.
var vscodeNames = []string{"file", "fileBasename", "fileBasenameNoExtension", "fileDirname", "fileDirnameBasename",
	"fileExtname", "fileWorkspaceFolder", "relativeFile", "relativeFileDirname", "lineNumber", "selectedText",
	"execPath", "defaultBuildTask", "cwd"}

// secretWords mark a variable or env name whose value is a credential.
var secretWords = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "KEY", "AUTH", "CREDENTIAL", "COOKIE", "SESSION", "PAT"}

// secretName reports whether a variable named k holds a credential.
func secretName(k string) bool {
	up := strings.ToUpper(k)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}

// expansion is the state of expanding one server's strings.
type expansion struct {
	l       *loader
	s       *ServerConfig
	key     string          // the server's key in the file, for places
	srv     string          // the scope of messages
	secrets []string        // values that may be credentials
	fromVar map[string]bool // fields ("headers.Authorization") a variable went into
}

// expandVars expands the variables of a server's strings (above).
func (l *loader) expandVars(key, srv string, s *ServerConfig, f *rawServerFields) map[string]bool {
	x := &expansion{l: l, s: s, key: key, srv: srv, fromVar: map[string]bool{}}
	s.Command = x.expand("command", s.Command, false)
	for i := range s.Args {
		s.Args[i] = x.expand(fmt.Sprintf("args[%d]", i), s.Args[i], false)
	}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		s.Env[k] = x.expand("env."+k, s.Env[k], secretName(k))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		s.Headers[k] = x.expand("headers."+k, s.Headers[k], true)
	}
	f.url = x.expand("url", f.url, false)
	f.cwd = x.expand("cwd", f.cwd, false)
	s.Secrets = append(s.Secrets, x.secrets...)
	return x.fromVar
}

// expand expands one field's value; secret says the field holds a
// credential whatever the variable is called.
func (x *expansion) expand(field, v string, secret bool) string {
	return refVar.ReplaceAllStringFunc(v, func(m string) string {
		sub := refVar.FindStringSubmatch(m)
		name, sep, rest := sub[1], sub[2], sub[3]
		val, ok := x.value(field, m, name, sep, rest)
		if !ok {
			return m
		}
		x.fromVar[field] = true
		varName := name
		if name == "env" {
			varName = rest
		}
		typed := name == "input" && sep == ":" // its value joins Secrets when given (FillInputs)
		if (secret || secretName(varName)) && !typed && strings.TrimSpace(val) != "" {
			x.secrets = append(x.secrets, val)
		}
		return val
	})
}

// value is what one reference stands for; ok false leaves it as written.
func (x *expansion) value(field, ref, name, sep, rest string) (string, bool) {
	l := x.l
	switch {
	case sep == ":" && name == "env":
		return l.getenv(rest), true
	case sep == ":" && name == "input":
		if !slices.Contains(x.s.Inputs, rest) {
			x.s.Inputs = append(x.s.Inputs, rest)
		}
		x.fromVar[field] = true
		return l.inputRef(rest), true
	case sep == ":":
		return "", false // ${config:…}, ${command:…}: VS Code's own
	case sep == "" && rest != "":
		return "", false
	case sep == "" && slices.Contains(vscodeNames, name):
		return "", false
	case sep == "" && name == "workspaceFolder":
		return l.workspace(), true
	case sep == "" && name == "workspaceFolderBasename":
		return filepath.Base(l.workspace()), true
	case sep == "" && name == "userHome":
		return cmp.Or(l.getenv("HOME"), l.getenv("USERPROFILE")), true
	case sep == "" && name == "pathSeparator":
		return string(filepath.Separator), true
	}
	if v := l.getenv(name); v != "" {
		return v, true
	}
	if sep == ":-" {
		return rest, true
	}
	what := "variable " + name
	if !mcp.PlainEnvName(name) {
		what = "the variable named here" // it may be the token itself
	}
	msg := fmt.Sprintf("config %s: %s: %s: %s is not set or empty; set it, or give a default: ${NAME:-value}",
		l.place(x.key, ref), x.srv, field, what)
	if l.project { // a project's server is off until enabled: said, not fatal
		l.warns = append(l.warns, msg)
		return "", true
	}
	l.errs = append(l.errs, errors.New(msg))
	return "", false
}

// inputRef is what ${input:ID} becomes until the person gives the value:
// a mark no variable's value can hold, which FillInputs alone replaces.
func (l *loader) inputRef(id string) string {
	return markedInput(id, l.inputMark())
}

// inputMark is this load's mark, made when first needed.
func (l *loader) inputMark() string {
	if l.mark == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		l.mark = hex.EncodeToString(b)
	}
	return l.mark
}

// markedInput is ${input:ID} as it stands in a server's strings: with the
// mark of the load that read it, when there is one.
func markedInput(id, mark string) string {
	if mark == "" {
		return "${input:" + id + "}"
	}
	return "${input:" + id + "!" + mark + "}" // "!" means nothing in a URL
}

// place is "file:line:col" of ref in the server keyed key (the first
// one after the key), or of the file alone when it cannot be found.
func (l *loader) place(key, ref string) string {
	if l.std == nil {
		return l.path
	}
	k, _ := json.Marshal(key)
	from := max(strings.Index(string(l.data), string(k)), 0)
	i := strings.Index(string(l.data[from:]), ref)
	if i < 0 {
		return l.path
	}
	return posAt(l.path, l.data, from+i)
}
