package gateway

import "os/exec"

// ownGroup leaves the command as it is: exec.CommandContext kills the
// process itself at the timeout.
func ownGroup(*exec.Cmd) {}
