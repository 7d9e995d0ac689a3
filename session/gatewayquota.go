package session

import "latch/mcp"

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
