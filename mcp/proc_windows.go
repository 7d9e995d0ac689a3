//go:build windows

package mcp

// hostEnv is what a stdio server inherits by default.
var hostEnv = windowsEnv
