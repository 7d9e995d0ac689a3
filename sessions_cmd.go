package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"latch/session"
	"latch/ui/sanitize"
)

// runSessions prints the saved sessions, newest first: `latch sessions`.
func runSessions(s *settings, stdout, stderr io.Writer) int {
	list, err := session.List(s.stateDir)
	if err != nil {
		say(stderr, err.Error())
		return exitError
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no saved sessions in %s\n", s.stateDir)
		return exitOK
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMODEL\tPENDING\tFIRST PROMPT")
	for _, x := range list {
		prompt := sanitize.Line(x.FirstPrompt)
		if len([]rune(prompt)) > 50 {
			prompt = string([]rune(prompt)[:50]) + "…"
		}
		pending := "-"
		if len(x.Pending) > 0 {
			pending = sanitize.Line(strings.Join(x.Pending, ",")) // ids from a log a person may have edited
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", x.ID, x.Started.Local().Format("2006-01-02 15:04"),
			sanitize.Line(x.Model), pending, prompt)
	}
	if err := tw.Flush(); err != nil {
		say(stderr, "latch sessions: "+err.Error())
		return exitError
	}
	return exitOK
}
