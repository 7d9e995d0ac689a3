package mcp

import (
	"errors"
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
type redactor struct {
	mu      sync.RWMutex
	secrets []string // longest first, so a secret holding another goes whole
}

// newRedactor returns a redactor that knows the given secrets.
func newRedactor(secrets ...string) *redactor {
	r := &redactor{}
	r.add(secrets...)
	return r
}

// add learns secrets, trimmed as they are sent; empty ones are ignored.
func (r *redactor) add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		s = trimToken(s)
		if s == "" || containsString(r.secrets, s) {
			continue
		}
		r.secrets = append(r.secrets, s)
	}
	sort.SliceStable(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// apply returns s with every known secret replaced.
func (r *redactor) apply(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, x := range r.secrets {
		if strings.Contains(s, x) {
			s = strings.ReplaceAll(s, x, redacted)
		}
	}
	return s
}

// empty reports whether there is nothing to redact.
func (r *redactor) empty() bool {
	if r == nil {
		return true
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.secrets) == 0
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
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, x := range r.secrets {
		for k := min(len(x)-1, len(s)); k >= minSecretPrefix; k-- {
			if strings.HasSuffix(s, x[:k]) {
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
	msg      string
	sentinel error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.sentinel }

// redactError returns err with its text redacted.
func (r *redactor) redactError(err error) error {
	if err == nil || r.empty() {
		return err
	}
	msg := r.apply(err.Error())
	if msg == err.Error() {
		return err
	}
	var sentinel error
	for _, s := range []error{ErrUnknownTool, ErrNotConnected, ErrTimeout, ErrCancelled, ErrUnknownServer} {
		if errors.Is(err, s) {
			sentinel = s
			break
		}
	}
	return &redactedError{msg: msg, sentinel: sentinel}
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
