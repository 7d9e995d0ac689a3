package permissions

import (
	"encoding/json"
	"errors"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argsGrant is a session grant of one call: a server's tool, as defined
// when it was granted (its digest), with exactly these arguments (their
// canonical form). Any difference in any of them is another call.
type argsGrant struct {
	name, server, tool, digest, args string
}

// errNoCanonical is GrantArgs's refusal of arguments with no canonical form.
var errNoCanonical = errors.New("the arguments have no exact form to approve (invalid text or a value JSON cannot carry)")

// GrantArgs allows c's tool with c's exact arguments for the rest of the
// session (`e` in the box, or `a` for a server with approve_args "exact"):
// a call of the same server's tool, under the same name and definition
// digest, whose arguments have the same canonical form (CanonicalArgs).
// The same tool with other arguments is asked about again. Arguments with
// no canonical form cannot be granted: it returns an error and grants
// nothing.
func (g *Gate) GrantArgs(c Call) error {
	args, ok := CanonicalArgs(c.Args)
	if !ok {
		return errNoCanonical
	}
	if c.Name == "" || c.Server == "" || c.Tool == "" {
		return errors.New("the call names no server's tool")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.argGrants == nil {
		g.argGrants = make(map[argsGrant]struct{})
	}
	g.argGrants[argsGrant{name: c.Name, server: c.Server, tool: c.Tool, digest: c.Digest, args: args}] = struct{}{}
	return nil
}

// argsGranted reports whether a GrantArgs grant covers c. The caller
// holds g.mu.
func (g *Gate) argsGranted(c Call) bool {
	if len(g.argGrants) == 0 || c.Name == "" {
		return false
	}
	args, ok := CanonicalArgs(c.Args)
	if !ok {
		return false
	}
	_, ok = g.argGrants[argsGrant{name: c.Name, server: c.Server, tool: c.Tool, digest: c.Digest, args: args}]
	return ok
}

// dropArgGrants removes the GrantArgs grants under name for which drop is
// true, and reports whether there were any. The caller holds g.mu.
func (g *Gate) dropArgGrants(name string, drop func(argsGrant) bool) bool {
	n := len(g.argGrants)
	maps.DeleteFunc(g.argGrants, func(k argsGrant, _ struct{}) bool { return k.name == name && drop(k) })
	return len(g.argGrants) < n
}

// ApprovesExactArgs reports whether `a` in the box approves only the
// call's exact arguments for server (approve_args "exact"), rather than
// the whole tool.
func (g *Gate) ApprovesExactArgs(server string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	_, ok := g.exactArgs[server]
	return ok
}

// CanonicalArgs is the canonical JSON of a call's arguments, as exact
// grants compare them: object keys sorted, no spaces. Two argument maps
// have the same form only if they hold the same values: a number (a
// json.Number as the client or model wrote it, a float64 as JSON sends
// it) is its exact decimal value (canonicalNumber), so 1 and 1.0 are one
// call and 9007199254740993 and 9007199254740992 are two. ok is false,
// and nothing can match, for text that is not valid UTF-8 (JSON would
// blur it into U+FFFD), NaN or an infinity, or a value of another type.
func CanonicalArgs(args map[string]any) (string, bool) {
	var b strings.Builder
	if !canonical(&b, args) {
		return "", false
	}
	return b.String(), true
}

func canonical(b *strings.Builder, v any) bool {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		return canonicalString(b, v)
	case json.Number:
		return canonicalNumberTo(b, string(v))
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
		return canonicalNumberTo(b, strconv.FormatFloat(v, 'g', -1, 64)) // as JSON sends it
	case int:
		return canonicalNumberTo(b, strconv.Itoa(v))
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if !canonical(b, e) {
				return false
			}
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		for i, k := range slices.Sorted(maps.Keys(v)) {
			if i > 0 {
				b.WriteByte(',')
			}
			if !canonicalString(b, k) {
				return false
			}
			b.WriteByte(':')
			if !canonical(b, v[k]) {
				return false
			}
		}
		b.WriteByte('}')
	default:
		return false
	}
	return true
}

func canonicalString(b *strings.Builder, s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	b.WriteString(strconv.Quote(s))
	return true
}
