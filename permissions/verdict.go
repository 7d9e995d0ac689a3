package permissions

import (
	"errors"
	"fmt"
)

// Decision is what the gate decided for one call.
type Decision int

// The decisions. Note that the zero Decision is Allow: check Verdict.Allowed
// rather than comparing a Verdict that may not come from Decide.
const (
	// Allow runs the call.
	Allow Decision = iota
	// Deny refuses the call; the model gets Verdict.Reason as the tool's error.
	Deny
	// AskUser asks the person at the keyboard (the y/n modal).
	AskUser
	// Park makes the call wait, persisted, for /approve or /reject.
	Park
)

// decisionNames holds the event spelling of each decision, indexed by Decision.
var decisionNames = [...]string{Allow: "allowed", Deny: "denied", AskUser: "asked", Park: "parked"}

// ErrUnknownDecision is wrapped by the errors of Decision.MarshalText and
// Decision.UnmarshalText.
var ErrUnknownDecision = errors.New("not a decision")

// String returns the event spelling of d ("allowed", "denied", "asked",
// "parked"), or "Decision(N)" for an unknown value.
func (d Decision) String() string {
	if d >= Allow && d <= Park {
		return decisionNames[d]
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// MarshalText implements encoding.TextMarshaler with the event spelling.
func (d Decision) MarshalText() ([]byte, error) {
	if d < Allow || d > Park {
		return nil, fmt.Errorf("permissions: cannot marshal %s: %w", d, ErrUnknownDecision)
	}
	return []byte(decisionNames[d]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler with the event spelling,
// so a session log can be read back. On error d is left unchanged.
func (d *Decision) UnmarshalText(text []byte) error {
	for i, name := range decisionNames {
		if string(text) == name {
			*d = Decision(i)
			return nil
		}
	}
	return fmt.Errorf("%q is %w (allowed, denied, asked, parked)", text, ErrUnknownDecision)
}

// Who decided, as written in Verdict.By and in the `permission` event.
const (
	// ByPolicy: the configuration, the flags or the mode decided.
	ByPolicy = "policy"
	// ByUser: the person at the keyboard decided (a session grant, the modal,
	// /approve or /reject).
	ByUser = "user"
)

// Verdict is the gate's answer for one call.
type Verdict struct {
	// Decision is what to do with the call.
	Decision Decision
	// Reason explains the decision. For Deny it is written for the model and
	// the user and says how the user could allow the call; for Allow it names
	// the rule that allowed it ("auto mode", or the allow-list entry).
	Reason string
	// By is ByPolicy or ByUser (ByUser for a session grant).
	By string
	// Source is where the allow-list entry came from, when an allow-list
	// allowed the call; "" otherwise.
	Source Source
	// Mode is the effective mode of the call's server.
	Mode Mode
	// Rule names the argument rule that decided (Rule.Origin), "" when
	// none did.
	Rule string
	// NoOneToAsk is set on a Deny that stands only because no one can be
	// asked (ask mode, or an ask rule, in a non-interactive gate): a
	// person could still allow the call. Any other Deny is final.
	NoOneToAsk bool
}

// Allowed reports whether v lets the call run: its decision is Allow and it
// was made by someone. The zero Verdict is not allowed, so a Verdict that was
// never filled in fails closed.
func (v Verdict) Allowed() bool {
	return v.Decision == Allow && (v.By == ByPolicy || v.By == ByUser)
}
