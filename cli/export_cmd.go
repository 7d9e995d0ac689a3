package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"latch/session"
	"latch/ui/sanitize"
)

// exportArgs is what follows `latch export`.
type exportArgs struct {
	id     string
	format string // md, json or html
	out    string // -o FILE; "" is stdout
}

// newExportCmd is `latch export ID [--format md|json|html] [-o FILE]`,
// the flags before or after the id.
func newExportCmd(f *flags) *cobra.Command {
	a := &f.export
	cmd := &cobra.Command{
		Use:   "export ID [--format md|json|html] [-o FILE]",
		Short: "a saved session's transcript, redacted (md by default)",
		Example: `  latch export 20261101-100000-a1b2c3
  latch export 20261101-100000-a1b2c3 --format html -o chat.html`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.command = "export"
			switch {
			case len(args) > 1:
				return fmt.Errorf("latch export: unexpected argument %q", sanitize.Line(args[1]))
			case len(args) == 0:
				return errors.New("latch export: give the id of a session (latch sessions lists them)")
			case !session.ValidID(args[0]):
				return fmt.Errorf("latch export %s: not a session id (letters, digits, - and _ only; latch sessions lists them)", sanitize.Line(args[0]))
			}
			a.id = args[0]
			switch a.format {
			case session.ExportMarkdown, session.ExportJSON, session.ExportHTML:
			default:
				return fmt.Errorf("latch export --format %s: md, json or html", sanitize.Line(a.format))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&a.format, "format", session.ExportMarkdown, "`md`, json or html")
	cmd.Flags().StringVarP(&a.out, "output", "o", "", "write to this `file` (0600, replaced whole) instead of stdout")
	return cmd
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
