package session

import "latch/permissions"

// Caller is the client of a gateway's call as the config names it: by
// its own token (verified) or by latch serve --stdio --as (a claim). The
// gate's rules with a "client" read it (permissions.CallClient).
type Caller = permissions.CallClient

// ValidClientName says why name cannot name a gateway's client, or nil
// (permissions.ValidClientName).
func ValidClientName(name string) error { return permissions.ValidClientName(name) }
