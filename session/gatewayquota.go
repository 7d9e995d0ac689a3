package session

import "encoding/json"

// ParkedSize is the bytes a gateway's parked call puts in the session log
// while it waits, as GatewayCall.Admit is told them: its arguments twice
// (the tool_call event and the approval_parked one, which the approval
// screens read) and the tool's description, with room for the events'
// other fields.
func ParkedSize(args map[string]any, description string) int64 {
	b, err := json.Marshal(args)
	n := int64(len(b))
	if err != nil {
		n = 0
	}
	return 2*n + int64(len(description)) + parkedOverhead
}

// parkedOverhead is a bound on what the three events of a parked call
// (tool_call, permission "parked", approval_parked) hold besides their
// arguments and description: ids, names, times.
const parkedOverhead = 2 << 10
