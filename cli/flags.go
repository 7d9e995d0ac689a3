package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"latch/session"
	"latch/ui/sanitize"
)

// errHelp means what was asked has been printed (--help, latch help,
// latch completion): there is nothing left to run.
var errHelp = errors.New("help")

// flags are the command-line options (docs/USING.md: Flags).
type flags struct {
	config string
	model  string
	// system is --system (a system prompt) and instructions --instructions
	// (a project's instructions file); see instructions.go.
	system, instructions string
	host                 string
	mode                 string
	allow                listFlag
	deny                 listFlag // --deny TOOL or TOOL(NAME=VALUE, …), repeatable
	roots                listFlag // --root DIR, repeatable
	theme                string
	version              bool

	prompt    string // -p: run one turn without the screen
	promptSet bool
	json      bool         // --json: events as NDJSON on stdout
	cont      bool         // --continue: resume the latest session
	resume    string       // --resume ID
	serveAddr string       // --serve ADDR: the chat with a gateway beside it
	fork      string       // --fork ID: a new session branched from ID
	approve   string       // --approve APPROVAL_ID (with --resume)
	reject    string       // --reject APPROVAL_ID (with --resume)
	command   string       // a subcommand: "sessions", "serve", "approvals", "decide", "policy" or "export"
	sessions  sessionsArgs // latch sessions [rm ID… | prune --older-than AGE]
	serve     serveArgs    // latch serve --stdio | --listen ADDR
	decide    decideArgs   // latch approve ID | latch reject ID [--reason TEXT]
	policy    policyArgs   // latch policy check TOOL 'JSON-ARGS' | latch policy list
	export    exportArgs   // latch export ID [--format md|json|html] [-o FILE]
	project   string       // latch project [enable|disable] (project_cmd.go)
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }
func (l *listFlag) Type() string       { return "string" }

// parseFlags reads the command line into flags: the command tree of
// newRoot parses it (each command's RunE only reads its arguments into
// f), then the checks across flags run. Help and completion scripts are
// written to out, and come back as errHelp. Every other error is a usage
// error, in one line.
func parseFlags(args []string, out io.Writer) (flags, error) {
	return parseCommandLine(args, out, os.Getenv)
}

// parseCommandLine is parseFlags with the environment the completions
// read (where the saved sessions are).
func parseCommandLine(args []string, out io.Writer, getenv func(string) string) (flags, error) {
	var f flags
	root := newRoot(&f, getenv)
	root.SetOut(out)
	root.SetErr(io.Discard)
	// A nil slice would make cobra read os.Args.
	root.SetArgs(append([]string{}, oldLongFlags(root, args)...))
	ran := false
	for _, c := range allCommands(root) {
		if c.RunE != nil {
			c.RunE = markRan(c.RunE, &ran)
		}
	}
	if err := root.Execute(); err != nil {
		return f, err
	}
	if !ran {
		return f, errHelp
	}
	return f, checkFlags(f)
}

// markRan wraps a command's RunE to note that it ran: when none did,
// cobra printed help or a completion script.
func markRan(run func(*cobra.Command, []string) error, ran *bool) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		*ran = true
		return run(cmd, args)
	}
}

// allCommands is root and every command under it.
func allCommands(root *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{root}
	for _, c := range root.Commands() {
		out = append(out, allCommands(c)...)
	}
	return out
}

// checkFlags are the checks across flags, once every command has read its
// own.
func checkFlags(f flags) error {
	switch {
	case f.cont && f.resume != "":
		return errors.New("--continue and --resume ID are exclusive")
	case f.fork != "" && (f.cont || f.resume != ""):
		return errors.New("--fork ID goes alone: not with --continue or --resume")
	case f.fork != "" && !session.ValidID(f.fork):
		return fmt.Errorf("--fork %s: not a session id (letters, digits, - and _ only; see latch sessions)", sanitize.Line(f.fork))
	case f.resume != "" && !session.ValidID(f.resume):
		return fmt.Errorf("--resume %s: not a session id (letters, digits, - and _ only; see latch sessions)", sanitize.Line(f.resume))
	case (f.approve != "" || f.reject != "") && f.resume == "" && !f.cont:
		return errors.New("--approve and --reject need --resume ID (or --continue)")
	case f.approve != "" && f.reject != "":
		return errors.New("--approve and --reject are exclusive")
	case f.json && !f.promptSet:
		return errors.New("--json goes with -p")
	case f.serveAddr != "" && (f.promptSet || f.command != ""):
		return errors.New("--serve ADDR goes with the chat; for a gateway alone: latch serve --listen ADDR")
	}
	return nil
}
