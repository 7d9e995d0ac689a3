//go:build windows

package mcp

import "os/exec"

// setProcessGroup has no equivalent here; the server is killed directly.
func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup kills the server: Windows has no SIGTERM.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func killGroup(cmd *exec.Cmd) { signalGroup(cmd, true) }

// hostEnv is what a stdio server inherits by default.
var hostEnv = windowsEnv
