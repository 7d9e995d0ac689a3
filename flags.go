package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// errHelp means --help was asked for and printed.
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
	command   string       // a subcommand: "sessions", "serve", "approvals", "decide" or "export"
	sessions  sessionsArgs // latch sessions [rm ID… | prune --older-than AGE]
	serve     serveArgs    // latch serve --stdio | --listen ADDR
	decide    decideArgs   // latch approve ID | latch reject ID [--reason TEXT]
	policy    policyArgs   // latch policy check TOOL 'JSON-ARGS' | latch policy list
	export    exportArgs   // latch export ID [--format md|json|html] [-o FILE]
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

const usageHead = `latch — chat with a local Ollama model, with MCP tools behind a permission gate.

Usage:
  latch [flags]                 the chat
  latch --serve 127.0.0.1:PORT  the chat, with its tools served to other MCP clients beside it
  latch -p PROMPT [--json]      one turn, no screen (exit 0 done, 1 error, 2 usage, 3 parked)
  latch --resume ID --approve APPROVAL_ID -p ""   finish a parked run
  latch sessions                saved sessions
  latch sessions rm ID…         delete saved sessions
  latch sessions prune --older-than 30d [--dry-run]
                                delete sessions idle that long
  latch serve --stdio [--as NAME] | --listen 127.0.0.1:PORT [--quiet] [--json] [--fresh]
                                serve the servers' tools to other MCP clients, through the gate
  latch --fork ID               a new session branched from a saved one (which stays as it was)
  latch export ID [--format md|json|html] [-o FILE]
                                a saved session's transcript, redacted (md by default)
  latch approvals [--full]      calls waiting for a person (of gateways and chats)
  latch approve ID | latch reject ID [--reason TEXT] [--full]
                                decide a gateway's waiting call: a person, at a terminal
                                (--full: every value of its arguments whole)
  latch policy check TOOL 'JSON-ARGS' [--mode MODE] [--non-interactive]
                                the gate's decision on a call, and the rule behind it
                                (exit 0 allow, 3 ask or park, 1 deny)
  latch policy list             the modes, allow-list and rules in effect, and their sources

Flags:
`

const usageTail = `
Environment:
  LATCH_CONFIG   config file (after --config)
  LATCH_MODEL    model (after --model)
  OLLAMA_HOST    Ollama server (after --host)
  NO_COLOR       monochrome output

Config file: --config, $LATCH_CONFIG, ./latch.json, then
$XDG_CONFIG_HOME/latch/config.json. See docs/CONFIG.md for the format.
`

func parseFlags(args []string, out io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("latch", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&f.config, "config", "", "config file `path`")
	fs.StringVar(&f.model, "model", "", "Ollama model `name` (e.g. one listed by `ollama list`)")
	fs.StringVar(&f.system, "system", "", "system prompt `text` (instead of the config's system_prompt)")
	fs.StringVar(&f.instructions, "instructions", "", "project instructions `file` sent first, e.g. AGENTS.md (instead of the config's instructions)")
	fs.StringVar(&f.host, "host", "", "Ollama `host`, as OLLAMA_HOST (default http://127.0.0.1:11434)")
	fs.StringVar(&f.mode, "mode", "", "permission `mode`: read_only, ask, approve or auto")
	fs.Var(&f.allow, "allow", "allow a tool by its namespaced `name` (server__tool), or only calls whose arguments match: "+
		"server__tool(path=~/src/proj/**); repeatable")
	fs.Var(&f.deny, "deny", "deny a tool's calls by its namespaced `name` (server__tool), or only those whose arguments match: "+
		"'*(*=~/.ssh/**)'; repeatable; a deny wins over every allow")
	fs.Var(&f.roots, "root", "a `directory` MCP servers are told of (roots); repeatable, adds to the config's roots. "+
		"With none given, no roots are offered: a server keeps the folders its own arguments give it")
	fs.StringVar(&f.theme, "theme", "", "colour `theme`: "+themes.Usage())
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.Func("p", "run one turn with this `prompt` and print the answer (no screen); \"-\" reads it from stdin", func(v string) error {
		f.prompt, f.promptSet = v, true
		return nil
	})
	fs.BoolVar(&f.json, "json", false, "with -p: print the events as NDJSON on stdout instead of the answer")
	fs.BoolVar(&f.cont, "continue", false, "resume the latest session")
	fs.StringVar(&f.resume, "resume", "", "resume the session with this `id` (see latch sessions)")
	fs.StringVar(&f.serveAddr, "serve", "", "with the chat: serve its tools to other MCP clients at http://`ADDR`/mcp beside it "+
		"(as latch serve --listen; needs a bearer token); their calls that need a person are asked in the chat")
	fs.StringVar(&f.fork, "fork", "", "start a new session branched from the session with this `id` (it stays as it was)")
	fs.StringVar(&f.approve, "approve", "", "with --resume: approve the parked call with this approval `id`")
	fs.StringVar(&f.reject, "reject", "", "with --resume: reject the parked call with this approval `id`")
	fs.Usage = func() {
		fmt.Fprint(out, usageHead)
		fs.PrintDefaults()
		fmt.Fprint(out, usageTail)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return f, errHelp
		}
		return f, err
	}
	if err := parseCommand(&f, fs.Args(), out); err != nil {
		return f, err
	}
	switch {
	case f.cont && f.resume != "":
		return f, errors.New("--continue and --resume ID are exclusive")
	case f.fork != "" && (f.cont || f.resume != ""):
		return f, errors.New("--fork ID goes alone: not with --continue or --resume")
	case f.fork != "" && !session.ValidID(f.fork):
		return f, fmt.Errorf("--fork %s: not a session id (letters, digits, - and _ only; see latch sessions)", sanitize.Line(f.fork))
	case f.resume != "" && !session.ValidID(f.resume):
		return f, fmt.Errorf("--resume %s: not a session id (letters, digits, - and _ only; see latch sessions)", sanitize.Line(f.resume))
	case (f.approve != "" || f.reject != "") && f.resume == "" && !f.cont:
		return f, errors.New("--approve and --reject need --resume ID (or --continue)")
	case f.approve != "" && f.reject != "":
		return f, errors.New("--approve and --reject are exclusive")
	case f.json && !f.promptSet:
		return f, errors.New("--json goes with -p")
	case f.serveAddr != "" && (f.promptSet || f.command != ""):
		return f, errors.New("--serve ADDR goes with the chat; for a gateway alone: latch serve --listen ADDR")
	}
	return f, nil
}

// parseCommand reads a subcommand and its arguments (what follows the
// flags) into f.
func parseCommand(f *flags, rest []string, out io.Writer) error {
	if len(rest) == 0 {
		return nil
	}
	var err error
	switch rest[0] {
	case "sessions":
		f.command = "sessions"
		f.sessions, err = parseSessionsArgs(rest[1:], out)
	case "serve":
		f.command = "serve"
		f.serve, err = parseServeArgs(rest[1:], out)
	case "approvals":
		f.command = "approvals"
		f.decide.full, err = parseApprovalsArgs(rest[1:])
	case "export":
		f.command = "export"
		f.export, err = parseExportArgs(rest[1:], out)
	case "approve", "reject":
		f.command = "decide"
		f.decide, err = parseDecideArgs(rest[0], rest[1:], out)
	case "policy":
		f.command = "policy"
		f.policy, err = parsePolicyArgs(f, rest[1:], out)
	default:
		err = fmt.Errorf("unexpected argument %q (see latch --help)", rest[0])
	}
	return err
}
