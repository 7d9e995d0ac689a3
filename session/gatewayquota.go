package session

import (
	"latch/mcp"
	"latch/permissions"
)

// admit asks gc.Admit for room for c when the verdict v would park it or
// put it to the person at the chat (who may leave it parked): the
// release to call once it no longer waits, or why it is refused. A call
// that runs or is refused at once needs no room.
func (s *Session) admit(c *toolCall, v permissions.Verdict, gc GatewayCall) (release func(), refusal string) {
	mayPark := parks(v, gc.ParkUnlisted) || v.Decision == permissions.AskUser && gc.Ask > 0
	if gc.Admit == nil || !mayPark {
		return func() {}, ""
	}
	release, refusal = gc.Admit(s.parkedSize(c))
	if release == nil {
		release = func() {}
	}
	return release, refusal
}

// parkedSize is the bytes a gateway's parked call puts in the session log
// while it waits, as GatewayCall.Admit is told them: its arguments as the
// log writes them (redacted, in the wire form's escapes) twice (the
// tool_call event and the approval_parked one, which the approval screens
// read) and the tool's description, with room for the events' other
// fields.
func (s *Session) parkedSize(c *toolCall) int64 {
	b, err := Marshal(&ToolCallEvent{Arguments: mcp.RedactAll(s.servers, c.args)})
	n := int64(len(b))
	if err != nil {
		n = 0
	}
	d, _ := Marshal(&ToolCallEvent{Tool: mcp.RedactAll(s.servers, c.tool.Description)})
	return 2*n + int64(len(d)) + parkedOverhead
}

// parkedOverhead is a bound on what the three events of a parked call
// (tool_call, permission "parked", approval_parked) hold besides their
// arguments and description: ids, names, times.
const parkedOverhead = 2 << 10
