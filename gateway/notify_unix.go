//go:build !windows

package gateway

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the notify command the leader of a process group, and
// its cancel kill the whole group: a child it left running (`sh -c
// "curl … &"`) is killed with it at the timeout.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
