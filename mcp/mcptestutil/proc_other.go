//go:build !unix

package mcptestutil

import (
	"os"
	"os/exec"
)

// setProcessGroup does nothing where there are no Unix process groups.
func setProcessGroup(*exec.Cmd) {}

// killProcessGroup kills cmd's process only: there is no process group.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func processAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	_ = p.Release()
	return true
}
