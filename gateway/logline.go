package gateway

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"latch/session"
	"latch/ui/sanitize"
)

// Decisions the gateway itself makes on a call, beside the session's
// (session.GatewayAllowed and the others).
const (
	// DecisionLimited: the client was over one of its Limits; the call
	// did not run.
	DecisionLimited = "limited"
)

// callLine is one call as the log tells it. Names only, and the
// gateway's own words: never the arguments, the result or a token.
type callLine struct {
	Client   string         // the client's label (clientLabel)
	Caller   session.Caller // the client as the config names it
	Says     string         // its clientInfo name
	Tool     string
	Decision string
	ID       string        // the invocation id, when the call has one
	Duration time.Duration // from the request to the answer
	Outcome  string        // an allowed call's: "ok", "tool_error" or "failed"
	Error    string        // why it was refused or failed (redacted upstream)
}

// outcomeOf fills in what became of a call from the session's outcome.
func (c *callLine) outcomeOf(out session.GatewayOutcome) {
	c.Decision, c.ID = out.Decision, out.ID
	switch out.Decision {
	case session.GatewayAllowed:
		switch {
		case out.Result == nil:
			c.Outcome, c.Error = "failed", out.Error
		case out.Result.IsError:
			c.Outcome = "tool_error"
		default:
			c.Outcome = "ok"
		}
	case session.GatewayDenied, session.GatewayInDoubt:
		c.Error = out.Reason
	}
}

// logLine writes the call's line: as text, client, tool, decision and
// duration; with JSON, an object with the fields of callLine. What came
// from a client or a server is made inert and kept to one line.
func (g *Gateway) logLine(c callLine) {
	if g.o.Log == nil {
		return
	}
	var line string
	if g.o.JSON {
		fields := map[string]any{"client": c.Client, "tool": c.Tool, "decision": c.Decision,
			"duration_ms": float64(c.Duration.Microseconds()) / 1000}
		if c.Caller.Name != "" {
			fields["client_name"], fields["client_verified"] = c.Caller.Name, c.Caller.Verified
		}
		for k, v := range map[string]string{"invocation_id": c.ID, "outcome": c.Outcome, "error": c.Error, "client_says": c.Says} {
			if v != "" {
				fields[k] = v
			}
		}
		line = jsonLine(time.Now(), "call", fields)
	} else {
		line = fmt.Sprintf("latch serve: %s %s %s %s\n", sanitize.Line(c.Client), sanitize.Line(c.Tool), c.Decision,
			c.Duration.Round(time.Microsecond))
	}
	g.logMu.Lock()
	defer g.logMu.Unlock()
	_, _ = io.WriteString(g.o.Log, line)
}

// jsonLine is one JSON object and a newline: the time, the event, and
// the fields, each string made inert and kept to one line.
func jsonLine(now time.Time, event string, fields map[string]any) string {
	obj := map[string]any{"time": now.UTC().Format(time.RFC3339Nano), "event": event}
	for k, v := range fields {
		if s, ok := v.(string); ok {
			v = sanitize.Line(s)
		}
		obj[k] = v
	}
	b, _ := json.Marshal(obj)
	return string(b) + "\n"
}

// LogEvent writes a line of latch serve's own to w: text as it is, or
// with asJSON an object naming the event with fields (which must hold no
// credential). Start and stop lines, for instance.
func LogEvent(w io.Writer, asJSON bool, event, text string, fields map[string]any) {
	if w == nil {
		return
	}
	line := "latch serve: " + sanitize.Line(text) + "\n"
	if asJSON {
		line = jsonLine(time.Now(), event, fields)
	}
	_, _ = io.WriteString(w, line)
}
