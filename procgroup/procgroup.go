// Package procgroup starts a command in a process group of its own and
// signals that whole group: a stdio MCP server (package mcp) and the
// gateway's notify_command (package gateway) both leave children behind
// (`npx` starts node, `sh -c "curl … &"` a background curl), which must
// go with them. On Windows, which has no process groups, the process
// itself is killed.
//
// It owns only that, and imports nothing but the standard library.
package procgroup
