package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"latch/session"
	"latch/ui/sanitize"
)

// exportArgs is what follows `latch export`.
type exportArgs struct {
	id     string
	format string // md, json or html
	out    string // -o FILE; "" is stdout
}

// parseExportArgs reads `latch export ID [--format md|json|html] [-o
// FILE]`, the flags before or after the id.
func parseExportArgs(args []string, out io.Writer) (exportArgs, error) {
	var a exportArgs
	fs := flag.NewFlagSet("latch export", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&a.format, "format", session.ExportMarkdown, "`md`, json or html")
	fs.StringVar(&a.out, "o", "", "write to this `file` (0600, replaced whole) instead of stdout")
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		a.id, args = args[0], args[1:]
	}
	if err := fs.Parse(args); err != nil {
		return a, err
	}
	rest := fs.Args()
	if a.id == "" && len(rest) > 0 {
		a.id, rest = rest[0], rest[1:]
	}
	switch {
	case len(rest) > 0:
		return a, fmt.Errorf("latch export: unexpected argument %q", sanitize.Line(rest[0]))
	case a.id == "":
		return a, errors.New("latch export: give the id of a session (latch sessions lists them)")
	case !session.ValidID(a.id):
		return a, fmt.Errorf("latch export %s: not a session id (letters, digits, - and _ only; latch sessions lists them)", sanitize.Line(a.id))
	}
	switch a.format {
	case session.ExportMarkdown, session.ExportJSON, session.ExportHTML:
	default:
		return a, fmt.Errorf("latch export --format %s: md, json or html", sanitize.Line(a.format))
	}
	return a, nil
}

// runExport writes a session's transcript to stdout or a file. Every
// credential the config reveals is redacted from it, the contents of
// token files too.
func runExport(s *settings, a exportArgs, stdout, stderr io.Writer) int {
	servers := serverConfigs(s.cfg.Servers)
	for i, c := range servers {
		if c.TokenFile == "" {
			continue
		}
		if b, err := os.ReadFile(c.TokenFile); err == nil {
			servers[i].Secrets = append(servers[i].Secrets, string(b))
		}
	}
	data, warns, err := session.Export(s.stateDir, a.id, session.ExportOptions{Format: a.format, Servers: servers, Getenv: s.getenv,
		Held: heldCredentials(s)})
	for _, w := range warns {
		say(stderr, "warning: "+w)
	}
	if errors.Is(err, session.ErrNoSession) {
		say(stderr, err.Error())
		return exitUsage
	}
	if err != nil {
		say(stderr, err.Error())
		return exitError
	}
	if a.out == "" {
		if _, err := stdout.Write(data); err != nil {
			say(stderr, "latch export: "+err.Error())
			return exitError
		}
		return exitOK
	}
	if err := session.WriteFileAtomic(a.out, data, 0o600); err != nil {
		say(stderr, "latch export: "+err.Error())
		return exitError
	}
	return exitOK
}
