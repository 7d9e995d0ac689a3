// Command latch is a terminal chat assistant for local models served by
// Ollama, with MCP tools behind a permission gate that fails closed.
//
// The root holds only this file and arch_test.go (which reads the whole
// tree from the module's root): every command lives in package cli.
package main

import (
	"os"

	"latch/cli"
)

func main() {
	os.Exit(cli.Run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
