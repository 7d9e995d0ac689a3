package session

import (
	"slices"
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

// ApprovalNotice says, before a person decides on the asked or parked
// call callID, what the rules of the moment will do to an approval: ""
// when none refuses it (or no such call waits), else the line an approval
// box shows above the arguments. It reads the config (Options.RulesNow):
// call it off the screen's loop.
func (s *Session) ApprovalNotice(callID string) string {
	s.mu.Lock()
	w, asked := s.asks[callID]
	s.mu.Unlock()
	call := w.call
	if !asked {
		pending := s.approvals.Pending()
		i := slices.IndexFunc(pending, func(ap permissions.Approval) bool { return ap.CallID == callID })
		if i < 0 {
			return ""
		}
		ap := pending[i]
		call = permissions.Call{Server: ap.Server, Tool: ap.Tool, Name: ap.Name, Args: ap.Arguments}
	}
	call.Bases = s.bases(call.Server) // the folders of the moment, as the rules

	why, _, refused := s.deniedNow(call)
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
	call.Bases = s.bases(call.Server) // the folders of the moment, as the rules
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
	return DeniedNow(r), r.Origin, true
}

// DeniedNow says that r, a deny rule of the moment, refuses a call a
// person approves: the rule by where it is written and as it reads.
func DeniedNow(r permissions.Rule) string {
	return "a rule now denies this call: " + r.Origin + " (" + r.Compact() + ")"
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
