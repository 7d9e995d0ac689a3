package permissions

import "strings"

// The reasons below reach the model (as the tool's error) and the user (on the
// tool card), so each says what happened and what the user could do. They are
// built by concatenation, not fmt: one is built for every call the gate
// decides.

// allowedBy names the rule that allowed c.
func allowedBy(c Call, src Source) string {
	switch src {
	case FromServer:
		return c.Tool + " is in the allow list of server " + c.Server
	case FromConfig:
		return c.Name + " is in permissions.allow"
	case FromFlag:
		return c.Name + " is allowed with --allow"
	case FromSaved:
		return c.Name + " was allowed always (saved grant)"
	default:
		return c.Name + " was allowed for this session"
	}
}

// notListed is the common start of every reason for a call that is not on the
// allow-list.
func notListed(c Call, mode Mode) string {
	return c.Name + " is not allow-listed and " + c.Server + " is in " + mode.String() + " mode"
}

// readOnlyDenial explains a read_only denial and how the user can lift it:
// a server override needs `/mode SERVER ask`, the global mode `/mode ask`;
// with no one to ask (-p), only --allow does.
func readOnlyDenial(c Call, overridden, interactive bool) string {
	if !interactive {
		return notListed(c, ReadOnly) + "; the user can allow it with --allow " + c.Name +
			" (-p asks no one: in ask mode it would be denied too)"
	}
	modeCmd := "/mode ask"
	if overridden {
		modeCmd = "/mode " + c.Server + " ask"
	}
	return notListed(c, ReadOnly) + "; the user can allow it with /allow " + c.Name + " or " + modeCmd
}

// noOneToAsk explains why a call the gate would ask about is denied in
// non-interactive mode: an ask rule, or ask mode.
func noOneToAsk(c Call, v Verdict) string {
	if v.Rule != "" {
		return "no one to ask in non-interactive mode (-p); " + strings.TrimSuffix(v.Reason, "; asking the user")
	}
	return "no one to ask in non-interactive mode (-p); " + notListed(c, Ask) +
		"; the user can allow it with --allow " + c.Name
}

// ruleSays names the argument rule that decided c, and what it says.
func ruleSays(c Call, r *Rule) string {
	verb := "denied"
	switch r.Decision {
	case Allow:
		verb = "allowed"
	case AskUser:
		verb = "to be asked about"
	}
	what := c.Name + " with these arguments"
	if len(r.args) == 0 {
		what = c.Name
	}
	return what + " is " + verb + " by rule " + r.Compact() + " (" + r.Origin + ")"
}

// savedChanged says that c's tool has a saved grant for another definition.
func savedChanged(c Call) string {
	return c.Name + " changed its definition since you allowed it always, so the saved grant does not cover it"
}

// GatewayReason explains why latch serve refuses a call that is not
// allow-listed in mode (read_only, or a mode that would put it to a
// person, whom the gateway cannot ask yet), and how to serve it.
func GatewayReason(c Call, mode Mode) string {
	return notListed(c, mode) + "; allow it in the config (" + c.Tool + " in server " + c.Server +
		"'s allow, or " + c.Name + " in permissions.allow) to serve it"
}
