package session

import (
	"strings"

	"latch/permissions"
)

// A person's yes is acted on against the rules of the moment: when an
// approval (the chat's box or /approve, latch approve, --resume's owed
// calls, a gateway resumed after a restart) is about to run a call, the
// call is checked again against the gate's rules and the config's as
// they are on disk now (Options.RulesNow). A deny rule that now matches
// refuses it, naming the rule; an ask rule does not (the person is
// approving). A config that no longer loads refuses it too: what the
// rules say cannot be known, and a call is never run on a guess.

// RuleNotice says, before a person decides on a call of tool name with
// args, what the rules of the moment will do to an approval: "" when
// none refuses it, else the line an approval screen shows above the
// arguments.
func (s *Session) RuleNotice(name string, args map[string]any) string {
	if s.servers == nil {
		return ""
	}
	t, ok := s.servers.Lookup(name)
	if !ok {
		return ""
	}
	why, _, refused := s.deniedNow(gateCall(t, args))
	if !refused {
		return ""
	}
	return why + " — approving will refuse it"
}

// refusedNow says why c, which a person has just approved, is refused all
// the same by the rules of the moment, or "". It notes the rule on c, for
// the permission event.
func (s *Session) refusedNow(c *toolCall) string {
	call := c.perm
	if call.Args == nil {
		call.Args = c.args
	}
	why, origin, refused := s.deniedNow(call)
	if !refused {
		return ""
	}
	if origin != "" {
		c.rule = origin
	}
	return "not run: " + why
}

// deniedNow checks call against the rules of the moment: why it is
// refused and the origin of the rule that refuses it ("" when the config
// cannot be read).
func (s *Session) deniedNow(call permissions.Call) (why, origin string, refused bool) {
	var disk []permissions.Rule
	if s.rulesNow != nil {
		rules, err := s.rulesNow()
		if err != nil {
			first, _, _ := strings.Cut(err.Error(), "\n")
			return "the config no longer loads, so the rules of the moment cannot be checked (" + first + ")", "", true
		}
		disk = rules
	}
	r, ok := s.gate.DenyingRule(call, disk)
	if !ok {
		return "", "", false
	}
	return "a rule now denies this call: " + r.Origin + " (" + r.Compact() + ")", r.Origin, true
}

// refuseByRules refuses c, a gateway's call a person has just approved,
// when the rules of the moment deny it: out is then the refusal the
// client gets, and the refusal is logged.
func (s *Session) refuseByRules(c *toolCall, out *GatewayOutcome) bool {
	why := s.refusedNow(c)
	if why == "" {
		return false
	}
	out.Decision, out.Reason = GatewayDenied, why
	s.deny(c, "policy", why, why)
	return true
}
