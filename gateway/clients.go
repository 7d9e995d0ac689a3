package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"latch/session"
)

// ClientTokens are the bearer tokens of the clients the config names
// (serve.clients), each of which names its client to the gate, the log
// and the approval screens. They are read again whenever a file they were
// read from changes (the config, a token file): each request first looks
// whether one did, so a token removed there is refused from the next
// request on, without a restart.
type ClientTokens struct {
	// Load reads the tokens now: client name → token, and the files
	// whose content they were read from. An error (which must hold no
	// token) refuses every named client until the files change again.
	Load func() (tokens map[string]string, files []string, err error)
	// OnError, when set, is told why the tokens could not be read again,
	// once for each change of the files.
	OnError func(error)
}

// tokenEntry is a token the guard takes, by its digest, and the client
// it names ("" for the shared token).
type tokenEntry struct {
	name string
	sum  [sha256.Size]byte
}

// tokenTable is what the guard checks a request's token against: the
// shared token, as latch serve started with it, and the named clients'
// tokens as the files hold them now.
type tokenTable struct {
	shared  *tokenEntry
	src     *ClientTokens
	mu      sync.Mutex
	files   map[string]*fileMark // each file as last looked at
	clients []tokenEntry
}

// newTokenTable reads the named clients' tokens (when src is set): an
// error here stops latch serve before it listens.
func newTokenTable(shared string, src *ClientTokens) (*tokenTable, error) {
	t := &tokenTable{src: src}
	if shared != "" {
		t.shared = &tokenEntry{sum: sha256.Sum256([]byte(shared))}
	}
	if src == nil || src.Load == nil {
		return t, nil
	}
	return t, t.reload()
}

// reload reads the named clients' tokens again; on an error none is
// taken. Each file is marked (stat'ed and hashed) before Load reads it,
// so that a write while it reads shows as a change at the next request
// rather than being taken as what was read; a file Load names for the
// first time is marked and Load is run again (at most twice more).
func (t *tokenTable) reload() error {
	marks := map[string]*fileMark{}
	for f := range t.files {
		m := markFile(f)
		marks[f] = &m
	}
	var tokens map[string]string
	var files []string
	var err error
	for range 3 {
		tokens, files, err = t.src.Load()
		fresh := false
		for _, f := range files {
			if _, ok := marks[f]; !ok {
				m := markFile(f)
				marks[f], fresh = &m, true
			}
		}
		if !fresh {
			break
		}
	}
	t.files = map[string]*fileMark{}
	for _, f := range files {
		t.files[f] = marks[f]
	}
	t.clients = nil
	if err == nil {
		t.clients, err = t.entries(tokens)
	}
	return err
}

// entries are tokens as the guard takes them. Two clients with one token
// (or a client with the shared token) is an error naming both, since
// neither could be told from the other.
func (t *tokenTable) entries(tokens map[string]string) ([]tokenEntry, error) {
	var out []tokenEntry
	seen := map[[sha256.Size]byte]string{}
	if t.shared != nil {
		seen[t.shared.sum] = "the shared token (serve.token_env, serve.token_file or $LATCH_SERVE_TOKEN)"
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(tokens)) {
		e := tokenEntry{name: name, sum: sha256.Sum256([]byte(tokens[name]))}
		if other, dup := seen[e.sum]; dup {
			errs = append(errs, fmt.Errorf("serve.clients.%s has the same token as %s: give each client its own", name, other))
			continue
		}
		seen[e.sum] = "serve.clients." + name
		out = append(out, e)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// match says whom token names: ok with name "" for the shared token, the
// client's name for a named client's. Every token taken is compared, in
// constant time, whatever matched before.
func (t *tokenTable) match(token string) (name string, ok bool) {
	sum := sha256.Sum256([]byte(token))
	if t.shared != nil && subtle.ConstantTimeCompare(sum[:], t.shared.sum[:]) == 1 {
		ok = true
	}
	if t.src == nil || t.src.Load == nil {
		return "", ok
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.refresh()
	for _, e := range t.clients {
		if subtle.ConstantTimeCompare(sum[:], e.sum[:]) == 1 {
			name, ok = e.name, true
		}
	}
	return name, ok
}

// refresh reads the tokens again when a file they came from changed. A
// file is stat'ed on each request and hashed only when its stat changed
// or is too recent to be trusted (fileMark.changed): a token removed is
// refused from the next request on, edited within the same second or not.
func (t *tokenTable) refresh() {
	changed := false
	for f, m := range t.files {
		if m.changed(f) {
			changed = true
			break
		}
	}
	if !changed {
		return
	}
	if err := t.reload(); err != nil && t.src.OnError != nil {
		t.src.OnError(err)
	}
}

// bearer is the token of a request's one Authorization header, or ok
// false: no header, two of them, not the Bearer scheme, or a value that
// is not one token (a space or a comma in it: two tokens in one header).
func bearer(values []string) (string, bool) {
	if len(values) != 1 {
		return "", false
	}
	tok, ok := strings.CutPrefix(values[0], "Bearer ")
	if !ok || tok == "" || strings.ContainsAny(tok, " \t,") {
		return "", false
	}
	return tok, true
}

// callerKey keys the client a request's token named in its context.
type callerKey struct{}

// withCaller is ctx with the verified client name (the request's token
// named it; "" for the shared token).
func withCaller(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, callerKey{}, name)
}

// caller is the client the config names for a call: the one its token
// named (verified), or over stdio the one --as named (a claim); zero
// when neither.
func (g *Gateway) caller(ctx context.Context) session.Caller {
	if name, _ := ctx.Value(callerKey{}).(string); name != "" {
		return session.Caller{Name: name, Verified: true}
	}
	if _, http := ctx.Value(callerKey{}).(string); http {
		return session.Caller{} // the shared token
	}
	return session.Caller{Name: g.o.As}
}

// clientLabel is how the log, the session and the approval screens name
// a call's client: a named client by its name, then what it says of
// itself (its clientInfo name), marked as such — `ci-bot (says
// "claude-code")`, `ci-bot, unverified (says "claude-code")` for one only
// --as named; any other by what it says, as said (quoted when it is not a
// plain name, so that it never reads as a named client's label). A
// named client that gives no name of its own "says nothing". What it
// says is put between quotes as it is, not escaped: the redactor finds a
// credential in it as sent, and every screen and log makes it inert.
func clientLabel(c session.Caller, says string) string {
	quoted := `"` + says + `"`
	if says == "?" {
		quoted = "nothing" // no clientInfo name
	}
	switch {
	case c.Name != "" && c.Verified:
		return c.Name + " (says " + quoted + ")"
	case c.Name != "":
		return c.Name + ", unverified (says " + quoted + ")"
	case says == "?" || session.ValidClientName(says) == nil:
		return says
	}
	return quoted
}

// CheckAs says why --as NAME cannot name the client, or nil: it names the
// client over stdio only (over HTTP each client's own token names it),
// by a name as serve.clients' keys are.
func CheckAs(name string, stdio bool) error {
	switch {
	case name == "":
		return nil
	case !stdio:
		return errors.New("latch serve: --as names the client over --stdio; over --listen each client is named by its own token (serve.clients)")
	}
	if err := session.ValidClientName(name); err != nil {
		return fmt.Errorf("latch serve: --as: %v", err)
	}
	return nil
}
