package cli

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// latch completion bash|zsh|fish|powershell is cobra's own command; this
// file gives it latch's words to offer: the saved sessions' ids where an
// id of a session goes, the waiting calls' ids after approve and reject,
// and the values of --mode, --theme and --format. What it offers comes
// from the session logs (a model's or a server's words among them), so
// every description is one sanitized line with no tab, and every id one
// that session.ValidID accepts.

// completeIDs wires the completions of root's commands and flags.
func completeIDs(root *cobra.Command, getenv func(string) string) {
	dir := func() string { return session.StateDir(getenv) }
	sessions := func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return sessionIDs(dir()), cobra.ShellCompDirectiveNoFileComp
	}
	fixed := func(words ...string) cobra.CompletionFunc {
		return cobra.FixedCompletions(words, cobra.ShellCompDirectiveNoFileComp)
	}
	_ = root.RegisterFlagCompletionFunc("resume", sessions)
	_ = root.RegisterFlagCompletionFunc("fork", sessions)
	_ = root.RegisterFlagCompletionFunc("mode", fixed("read_only", "ask", "approve", "auto"))
	_ = root.RegisterFlagCompletionFunc("theme", fixed(themes.Names()...))
	for _, c := range allCommands(root) {
		switch c.CommandPath() {
		case "latch export":
			c.ValidArgsFunction = onlyFirst(sessions)
			_ = c.RegisterFlagCompletionFunc("format", fixed(session.ExportMarkdown, session.ExportJSON, session.ExportHTML))
		case "latch sessions rm":
			c.ValidArgsFunction = sessions
		case "latch approve", "latch reject":
			c.ValidArgsFunction = onlyFirst(func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
				return parkedIDs(dir()), cobra.ShellCompDirectiveNoFileComp
			})
		case "latch policy", "latch sessions":
			// their subcommands are offered by cobra; nothing else
			c.ValidArgsFunction = fixed()
		}
	}
}

// onlyFirst offers fn's words for the first argument only.
func onlyFirst(fn cobra.CompletionFunc) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return fn(cmd, args, toComplete)
	}
}

// sessionIDs are the saved sessions, newest first, each with its model and
// first prompt as its description.
func sessionIDs(dir string) []cobra.Completion {
	list, _ := session.List(dir)
	var out []cobra.Completion
	for _, s := range list {
		if session.ValidID(s.ID) {
			out = append(out, cobra.CompletionWithDesc(s.ID, describe(s.Model+" "+s.FirstPrompt)))
		}
	}
	return out
}

// parkedIDs are the ids of the calls waiting for a person, with their
// tool as the description: from the index of parked calls, as latch
// approvals reads them (a key pressed at a backlog of thousands reads
// no session log whole), and never a call decided already.
func parkedIDs(dir string) []cobra.Completion {
	x := openParked(dir, io.Discard) // a completion prints only its words
	defer x.close()
	calls, _ := x.waiting()
	var out []cobra.Completion
	for _, p := range calls {
		if p.CallID != "" && session.ValidID(p.CallID) {
			out = append(out, cobra.CompletionWithDesc(p.CallID, describe(p.Tool)))
		}
	}
	return out
}

// describe is a completion's description: one sanitized line, short,
// without a tab (which would end it).
func describe(s string) string {
	s = strings.TrimSpace(sanitize.Line(strings.ReplaceAll(s, "\t", " ")))
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}
