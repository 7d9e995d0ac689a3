package permissions

import (
	"errors"
	"fmt"
	"strings"
)

// Mode is a permission mode: what the gate does with a call to a tool that is
// not allow-listed.
type Mode int

// The modes, in order of increasing trust. The zero Mode is ReadOnly, so an
// unset mode fails closed.
const (
	// ReadOnly denies every call that is not allow-listed (the default).
	ReadOnly Mode = iota
	// Ask asks the person at the keyboard (y/n); without one the call is denied.
	Ask
	// Approve parks the call until someone approves or rejects it.
	Approve
	// Auto runs every call.
	Auto
)

// modeNames holds the config spelling of each mode, indexed by Mode.
var modeNames = [...]string{ReadOnly: "read_only", Ask: "ask", Approve: "approve", Auto: "auto"}

// ErrUnknownMode is wrapped by the errors of ParseMode and UnmarshalText.
var ErrUnknownMode = errors.New("not a mode")

// Modes returns the config spellings of every mode, in order.
func Modes() []string {
	return append([]string(nil), modeNames[:]...)
}

// ParseMode parses the config spelling of a mode ("read_only", "ask",
// "approve", "auto"). Matching is exact; the error lists the valid spellings.
func ParseMode(s string) (Mode, error) {
	for i, name := range modeNames {
		if s == name {
			return Mode(i), nil
		}
	}
	return ReadOnly, fmt.Errorf("%q is %w (%s)", s, ErrUnknownMode, strings.Join(modeNames[:], ", "))
}

// String returns the config spelling of m, or "Mode(N)" for an unknown value.
func (m Mode) String() string {
	if m.valid() {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// MarshalText implements encoding.TextMarshaler with the config spelling. It
// fails for an unknown value rather than write something that cannot be read back.
func (m Mode) MarshalText() ([]byte, error) {
	if !m.valid() {
		return nil, fmt.Errorf("permissions: cannot marshal %s: %w", m, ErrUnknownMode)
	}
	return []byte(modeNames[m]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseMode. On error m
// is left unchanged.
func (m *Mode) UnmarshalText(text []byte) error {
	parsed, err := ParseMode(string(text))
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}

// valid reports whether m is one of the four modes.
func (m Mode) valid() bool {
	return m >= ReadOnly && m <= Auto
}

// orReadOnly returns m, or ReadOnly if m is not a valid mode: an unknown mode
// fails closed.
func (m Mode) orReadOnly() Mode {
	if m.valid() {
		return m
	}
	return ReadOnly
}
