//go:build windows

package procgroup

import "os/exec"

// Own does nothing: Windows has no process groups here.
func Own(*exec.Cmd) {}

// KillOnCancel leaves the command as it is: exec.CommandContext kills the
// process itself at its cancel.
func KillOnCancel(*exec.Cmd) {}

// Signal kills the process: Windows has no SIGTERM.
func Signal(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// Kill kills the process.
func Kill(cmd *exec.Cmd) { Signal(cmd, true) }
