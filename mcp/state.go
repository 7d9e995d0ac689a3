package mcp

import (
	"fmt"
	"time"
)

// State is where a server's connection stands.
type State int

// The states a server moves through.
const (
	StateDisabled     State = iota // configured off; /connect starts it
	StateConnecting                // building the client, handshake, first tool list
	StateConnected                 // handshake and first tool list succeeded
	StateFailed                    // connecting failed
	StateDisconnected              // it was connected, then the server went away
	StateAuthExpired               // the server answered 401
	StateClosed                    // closed by the user
)

var stateNames = [...]string{"disabled", "connecting", "connected", "failed", "disconnected", "auth expired", "closed"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// MarshalText writes the state's name, for events on the wire.
func (s State) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Status is a snapshot of one server.
type Status struct {
	Name      string
	Transport string
	State     State
	// Reason says why a server failed, disconnected or lost its
	// authorisation; credentials are redacted from it.
	Reason          string
	ExitStatus      string   // a stdio server's exit ("exit status 3", "signal: killed"), when it ended
	StderrTail      []string // the last lines of a stdio server's stderr, when it failed or ended
	ProtocolVersion string
	ServerName      string // what the server calls itself
	Tools           int
	// Offers are what the server offers (tools, prompts, resources,
	// logging, completions); Answers are the server requests latch
	// declared it answers on this connection (roots); NotOffered are the
	// requests latch would answer but the transport cannot carry (legacy
	// SSE). All three are set at connect.
	Offers     []string
	Answers    []string
	NotOffered []string
	LastError  string
	Since      time.Time // when it entered State
	// Login is an OAuth server's login (zero for the others).
	Login LoginInfo
}

// Summary is the one-line form: "connected (3 tools)", "failed: …".
func (s Status) Summary() string {
	switch s.State {
	case StateConnected:
		if s.Tools == 1 {
			return "connected (1 tool)"
		}
		return fmt.Sprintf("connected (%d tools)", s.Tools)
	case StateFailed, StateDisconnected:
		if s.Reason != "" {
			return s.State.String() + ": " + s.Reason
		}
	case StateAuthExpired:
		if s.Login.OAuth {
			return s.loginSummary()
		}
		if s.Reason != "" {
			return s.Reason // what the server refused, and what to do (tokenrefused.go)
		}
		return fmt.Sprintf("auth expired: /token %s or /connect %s", s.Name, s.Name)
	}
	return s.State.String()
}
