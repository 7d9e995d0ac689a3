package cli

import (
	"bytes"
	"strings"
	"testing"

	"latch/session"
)

// TestPrintDeclinedElicitation: with -p, a server's request for input is
// declined for want of anyone to answer, and one line on stderr names the
// server; an answer the person gave (in the TUI) prints nothing here.
func TestPrintDeclinedElicitation(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		var out, errOut bytes.Buffer
		p := newPrinter("20261201-000000-abcdef", asJSON, &out, &errOut)
		p.event(&session.ElicitationEvent{Header: session.Header{Type: session.TypeElicitation}, ID: "f1", Server: "desk",
			Mode: session.ElicitForm, Message: "Your name?"})
		p.event(&session.ElicitationAnswerEvent{Header: session.Header{Type: session.TypeElicitAnswer}, ID: "f1", Server: "desk",
			Mode: session.ElicitForm, Action: session.ElicitDecline, By: "policy", Reason: "no one can answer (latch runs with -p)"})
		p.event(&session.ElicitationAnswerEvent{Header: session.Header{Type: session.TypeElicitAnswer}, ID: "f2", Server: "other",
			Mode: session.ElicitForm, Action: session.ElicitAccept, By: "user"})
		want := "latch: MCP server desk asked for input (form): declined: no one can answer (latch runs with -p)\n"
		if errOut.String() != want {
			t.Errorf("json %v: stderr %q, want %q", asJSON, errOut.String(), want)
		}
		if asJSON != strings.Contains(out.String(), `"type":"elicitation_answer"`) {
			t.Errorf("json %v: stdout %q", asJSON, out.String())
		}
	}
}
