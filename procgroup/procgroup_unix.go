//go:build !windows

package procgroup

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, once started, the leader of a new process group, so that
// it and every child it spawns can be signalled together.
func Own(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// KillOnCancel does Own, and makes the cancel of a command made by
// exec.CommandContext kill the whole group rather than the leader alone.
func KillOnCancel(cmd *exec.Cmd) {
	Own(cmd)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// Signal sends SIGTERM (or SIGKILL when kill) to cmd's process group. It
// does nothing for a command that never started.
func Signal(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// Kill kills whatever is left of cmd's process group.
func Kill(cmd *exec.Cmd) { Signal(cmd, true) }
