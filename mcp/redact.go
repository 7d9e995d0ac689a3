package mcp

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"

	"latch/ui/sanitize"
)

// redacted stands in for a credential in text.
const redacted = "[redacted]"

// redactor holds every credential the manager knows of — each server's,
// not only the one a connection was built with — and replaces them in
// text from any server. One set is shared by the manager and all its
// connections, so a credential learned at one connect is hidden from then
// on everywhere. A nil redactor redacts nothing.
//
// Each secret has the label that stands in for it: "[redacted]" for a
// credential, and for a password the person typed into a form, words
// saying whose it is, so that what shows in its place (in a permission
// box above all) is exact about what will be sent.
type redactor struct {
	mu      sync.RWMutex
	secrets []secret // longest first; replaced, never changed in place, on add
}

// secret is a value to hide and what is shown in its place.
type secret struct{ value, label string }

// newRedactor returns a redactor that knows the given secrets.
func newRedactor(secrets ...string) *redactor {
	r := &redactor{}
	r.add(secrets...)
	return r
}

// add learns credentials, trimmed as they are sent; empty ones are
// ignored.
func (r *redactor) add(secrets ...string) {
	for _, s := range secrets {
		r.addLabeled(s, redacted)
	}
}

// addLabeled learns one secret, trimmed as it is sent, shown as label.
// A value already known keeps its first label.
func (r *redactor) addLabeled(value, label string) {
	value = trimToken(value)
	if value == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, x := range r.secrets {
		if x.value == value {
			return
		}
	}
	next := append(slices.Clone(r.secrets), secret{value, label})
	sort.SliceStable(next, func(i, j int) bool { return len(next[i].value) > len(next[j].value) })
	r.secrets = next
}

// known returns the secrets (a slice no one changes).
func (r *redactor) known() []secret {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.secrets
}

// apply returns s with every known secret replaced by its label. Every
// byte of every occurrence is hidden, where secrets overlap too; a run of
// hidden bytes becomes the labels of the secrets found in it, and a label
// is never searched again.
func (r *redactor) apply(s string) string {
	if r == nil {
		return s
	}
	type hit struct {
		at    int
		label string
	}
	var (
		hidden []bool
		hits   []hit
	)
	for _, x := range r.known() {
		for i := 0; i < len(s); {
			j := strings.Index(s[i:], x.value)
			if j < 0 {
				break
			}
			at := i + j
			if hidden == nil {
				hidden = make([]bool, len(s))
			}
			hits = append(hits, hit{at, x.label})
			for k := at; k < at+len(x.value); k++ {
				hidden[k] = true
			}
			i = at + 1
		}
	}
	if hidden == nil {
		return s
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].at < hits[j].at })
	var b strings.Builder
	for i, h := 0, 0; i < len(s); {
		if !hidden[i] {
			b.WriteByte(s[i])
			i++
			continue
		}
		end := i
		for end < len(s) && hidden[end] {
			end++
		}
		last := ""
		for ; h < len(hits) && hits[h].at < end; h++ {
			if hits[h].label != last {
				b.WriteString(hits[h].label)
				last = hits[h].label
			}
		}
		i = end
	}
	return b.String()
}

// empty reports whether there is nothing to redact.
func (r *redactor) empty() bool {
	if r == nil {
		return true
	}
	return len(r.known()) == 0
}

// all applies the redactor to every string v holds, at any depth.
func redactAll[T any](r *redactor, v T) T {
	if r.empty() {
		return v
	}
	return sanitize.MapStrings(v, r.apply)
}

// minSecretPrefix is the shortest prefix of a secret a cut must not leave
// at its end.
const minSecretPrefix = 4

// cut returns at most max bytes of s (already redacted), ending on a whole
// UTF-8 character and never on the first minSecretPrefix or more
// characters of a known secret.
func (r *redactor) cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	s = s[:n]
	if r == nil {
		return s
	}
	for _, x := range r.known() {
		for k := min(len(x.value)-1, len(s)); k >= minSecretPrefix; k-- {
			if strings.HasSuffix(s, x.value[:k]) {
				s = s[:len(s)-k]
				break
			}
		}
	}
	return s
}

// redactedError is an error whose text was redacted. It still matches the
// manager's sentinel errors with errors.Is, and nothing else: the original
// error, with the secret in its text, is not reachable through it.
type redactedError struct {
	msg       string
	sentinels []error
}

func (e *redactedError) Error() string { return e.msg }

// Unwrap gives the first kind only, never the original error (which holds
// the secret).
func (e *redactedError) Unwrap() error {
	if len(e.sentinels) == 0 {
		return nil
	}
	return e.sentinels[0]
}

// Is reports every kind the original error had (a task call that was
// stopped is both ErrCancelled and ErrTaskCancelled).
func (e *redactedError) Is(target error) bool {
	for _, s := range e.sentinels {
		if s == target {
			return true
		}
	}
	return false
}

// redactError returns err with its text redacted.
func (r *redactor) redactError(err error) error {
	if err == nil || r.empty() {
		return err
	}
	msg := r.apply(err.Error())
	if msg == err.Error() {
		return err
	}
	var sentinels []error
	for _, s := range []error{ErrUnknownTool, ErrNotConnected, ErrTimeout, ErrCancelled, ErrUnknownServer,
		ErrTaskFailed, ErrTaskCancelled, ErrTaskUnknown, ErrTaskLeft, ErrTaskEra} {
		if errors.Is(err, s) {
			sentinels = append(sentinels, s)
		}
	}
	return &redactedError{msg: msg, sentinels: sentinels}
}

// Redact returns s with every credential the manager knows replaced.
func (m *Manager) Redact(s string) string { return m.red.apply(s) }

// RedactAll returns v with every credential the manager knows replaced in
// every string it holds (see sanitize.MapStrings); v itself is unchanged.
// A nil manager redacts nothing.
func RedactAll[T any](m *Manager, v T) T {
	if m == nil {
		return v
	}
	return redactAll(m.red, v)
}
