package cli

import (
	"fmt"
	"io"

	"latch/mcp"
	"latch/permissions"
	"latch/session"
	"latch/ui/sanitize"
)

// serverBases are the folders the session would let the rules resolve
// server's relative paths against: its config's bases (its working
// folder, the folders in its arguments, the roots), as the live session's
// manager gives them (mcp.Manager.Bases: "~" is the home the server's env
// sets, else latch's); nil for a remote server, or one the session leaves
// out.
func serverBases(o session.Options, server string) []string {
	return mcp.New(o.Servers, mcp.Options{Getenv: o.Getenv, Roots: o.Roots}).Bases(server)
}

// printPathReadings prints how the rules read each path of c: where the
// server may open it, against which base.
func printPathReadings(out io.Writer, g *permissions.Gate, c permissions.Call) {
	rs, more := g.PathReadings(c)
	if len(rs) == 0 {
		return
	}
	fmt.Fprintln(out, "  paths, as the server may read them:")
	for _, r := range rs {
		fmt.Fprintln(out, "    "+sanitize.Line(r.String(g.Home())))
	}
	if more {
		fmt.Fprintln(out, "    … (more not shown)")
	}
}
