package cli

import (
	"github.com/spf13/cobra"

	"latch/themes"
)

// newRoot is the command tree, its flags bound to f: latch itself (the
// chat, or -p's one turn) and each subcommand, one file each. The flags
// every command reads (--config, --mode, --model …) are persistent, so
// they go before or after the subcommand; the chat's own (-p, --continue,
// --serve …) are the root's alone.
func newRoot(f *flags, getenv func(string) string) *cobra.Command {
	root := &cobra.Command{
		Use:   "latch",
		Short: "chat with a local Ollama model, with MCP tools behind a permission gate",
		Long:  "latch — chat with a local Ollama model, with MCP tools behind a permission gate.",
		Example: `  latch                             the chat
  latch --serve 127.0.0.1:PORT      the chat, with its tools served to other MCP clients beside it
  latch -p PROMPT [--json]          one turn, no screen (exit 0 done, 1 error, 2 usage, 3 parked)
  latch --resume ID --approve APPROVAL_ID -p ""   finish a parked run
  latch --fork ID                   a new session branched from a saved one (which stays as it was)`,
		Args:          rootArgs,
		SilenceErrors: true,
		SilenceUsage:  true,
		// The chat's flags are read here; run starts it.
		RunE: func(cmd *cobra.Command, _ []string) error {
			f.promptSet = cmd.Flags().Changed("prompt")
			return nil
		},
	}
	root.SetFlagErrorFunc(flagError)
	root.SetUsageTemplate(root.UsageTemplate() + usageTail)

	p := root.PersistentFlags()
	p.StringVar(&f.config, "config", "", "config file `path`")
	p.StringVar(&f.model, "model", "", "Ollama model `name` (e.g. one listed by ollama list)")
	p.StringVar(&f.system, "system", "", "system prompt `text` (instead of the config's system_prompt)")
	p.StringVar(&f.instructions, "instructions", "", "project instructions `file` sent first, e.g. AGENTS.md (instead of the config's instructions)")
	p.StringVar(&f.host, "host", "", "Ollama `host`, as OLLAMA_HOST (default http://127.0.0.1:11434)")
	p.StringVar(&f.mode, "mode", "", "permission `mode`: read_only, ask, approve or auto")
	p.Var(&f.allow, "allow", "allow a tool by its namespaced `name` (server__tool), or only calls whose arguments match: "+
		"server__tool(path=~/src/proj/**); repeatable")
	p.Var(&f.deny, "deny", "deny a tool's calls by its namespaced `name` (server__tool), or only those whose arguments match: "+
		"'*(*=~/.ssh/**)'; repeatable; a deny wins over every allow")
	p.Var(&f.roots, "root", "a `directory` MCP servers are told of (roots); repeatable, adds to the config's roots. "+
		"With none given, no roots are offered: a server keeps the folders its own arguments give it")
	p.StringVar(&f.theme, "theme", "", "colour `theme`: "+themes.Usage())

	l := root.Flags()
	l.BoolVar(&f.version, "version", false, "print the version and exit")
	l.StringVarP(&f.prompt, "prompt", "p", "", "run one turn with this `prompt` and print the answer (no screen); \"-\" reads it from stdin")
	l.BoolVar(&f.json, "json", false, "with -p: print the events as NDJSON on stdout instead of the answer")
	l.BoolVar(&f.cont, "continue", false, "resume the latest session")
	l.StringVar(&f.resume, "resume", "", "resume the session with this `id` (see latch sessions)")
	l.StringVar(&f.serveAddr, "serve", "", "with the chat: serve its tools to other MCP clients at http://`ADDR`/mcp beside it "+
		"(as latch serve --listen; needs a bearer token); their calls that need a person are asked in the chat")
	l.StringVar(&f.fork, "fork", "", "start a new session branched from the session with this `id` (it stays as it was)")
	l.StringVar(&f.approve, "approve", "", "with --resume: approve the parked call with this approval `id`")
	l.StringVar(&f.reject, "reject", "", "with --resume: reject the parked call with this approval `id`")

	root.AddCommand(
		newServeCmd(f),
		newSessionsCmd(f),
		newApprovalsCmd(f),
		newDecideCmd(f, "approve"),
		newDecideCmd(f, "reject"),
		newPolicyCmd(f),
		newExportCmd(f),
		newProjectCmd(f),
		newInboxCmd(f),
	)
	completeIDs(root, getenv)
	return root
}

// usageTail follows the root's usage: the environment and the config
// file's places.
const usageTail = `{{if not .HasParent}}
Environment:
  LATCH_CONFIG   config file (after --config)
  LATCH_MODEL    model (after --model)
  OLLAMA_HOST    Ollama server (after --host)
  NO_COLOR       monochrome output

Config file: --config, $LATCH_CONFIG, then $XDG_CONFIG_HOME/latch/config.json;
a project's ./latch.json and ./.mcp.json are merged onto it (their servers off
until "latch project enable"). See docs/CONFIG.md for the format.
{{end}}`
