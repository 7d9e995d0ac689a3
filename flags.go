package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// errHelp means --help was asked for and printed.
var errHelp = errors.New("help")

// flags are the command-line options (DESIGN §3).
type flags struct {
	config  string
	model   string
	host    string
	mode    string
	allow   listFlag
	theme   string
	version bool
}

// listFlag collects a repeatable flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

const usageHead = `latch — chat with a local Ollama model, with MCP tools behind a permission gate.

Usage:
  latch [flags]

Flags:
`

const usageTail = `
Environment:
  LATCH_CONFIG   config file (after --config)
  LATCH_MODEL    model (after --model)
  OLLAMA_HOST    Ollama server (after --host)
  NO_COLOR       monochrome output

Config file: --config, $LATCH_CONFIG, ./latch.json, then
$XDG_CONFIG_HOME/latch/config.json. See README.md for the format.
`

func parseFlags(args []string, out io.Writer) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("latch", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&f.config, "config", "", "config file `path`")
	fs.StringVar(&f.model, "model", "", "Ollama model `name` (e.g. one listed by `ollama list`)")
	fs.StringVar(&f.host, "host", "", "Ollama `host`, as OLLAMA_HOST (default http://127.0.0.1:11434)")
	fs.StringVar(&f.mode, "mode", "", "permission `mode`: read_only, ask, approve or auto")
	fs.Var(&f.allow, "allow", "allow a tool by its namespaced `name` (server__tool); repeatable")
	fs.StringVar(&f.theme, "theme", "", "colour `theme`: auto, dark or light")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
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
	if fs.NArg() > 0 {
		return f, fmt.Errorf("unexpected argument %q (see latch --help)", fs.Arg(0))
	}
	return f, nil
}
