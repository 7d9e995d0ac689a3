package ui

import (
	"fmt"
	"strings"
)

// promptArg is one NAME=VALUE of a prompt's command line, as typed.
type promptArg struct {
	start int    // where it begins in the line
	name  string // before the first '='
	value string // after it, unquoted
	eq    bool   // it has an '='
	open  bool   // it ends inside a quote (only the last one can)
}

// splitPromptArgs reads NAME=VALUE words, leniently (for completion as
// well as running): a value may be quoted, "…" (where \" and \\ escape)
// or '…'. A line that ends in a space (outside a quote) starts a new,
// empty word.
func splitPromptArgs(s string) []promptArg {
	var out []promptArg
	i := 0
	for {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i >= len(s) {
			if len(s) > 0 && s[len(s)-1] == ' ' {
				out = append(out, promptArg{start: len(s)})
			}
			return out
		}
		a, next := readPromptArg(s, i)
		out = append(out, a)
		i = next
	}
}

// readPromptArg reads the word at s[i:] up to a space outside quotes.
func readPromptArg(s string, i int) (promptArg, int) {
	a := promptArg{start: i}
	var cur strings.Builder
	var quote byte
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == 0 && c == ' ':
			a.value = cur.String()
			return a, i
		case quote == 0 && c == '=' && !a.eq:
			a.name, a.eq = cur.String(), true
			cur.Reset()
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\'):
			i++
			cur.WriteByte(s[i])
		default:
			cur.WriteByte(c)
		}
	}
	a.open = quote != 0
	if a.eq {
		a.value = cur.String()
	} else {
		a.name = cur.String()
	}
	return a, i
}

// parsePromptArgs reads a prompt's arguments: NAME=VALUE words, each name
// once.
func parsePromptArgs(s string) (map[string]string, error) {
	args := map[string]string{}
	for _, a := range splitPromptArgs(s) {
		switch {
		case a.start == len(s):
			continue // the trailing space
		case a.open:
			return nil, fmt.Errorf("a quote is not closed in %s", strings.TrimSpace(s[a.start:]))
		case !a.eq || a.name == "":
			return nil, fmt.Errorf("expected NAME=VALUE, got %q", wordAt(s, a.start))
		}
		if _, dup := args[a.name]; dup {
			return nil, fmt.Errorf("%s is given twice", a.name)
		}
		args[a.name] = a.value
	}
	return args, nil
}

// wordAt is the word of s at i, as typed.
func wordAt(s string, i int) string {
	w, _, _ := strings.Cut(s[i:], " ")
	return w
}

// quoteValue writes a value as it is typed: bare when it can be, else in
// double quotes.
func quoteValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " \"'\\=") {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}
