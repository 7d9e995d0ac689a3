package cli

import (
	"errors"
	"fmt"
	"github.com/spf13/cobra"
	"io"
	"os"
	"strings"

	"latch/config"
	"latch/ui/sanitize"
)

// `latch project` lists the project files of the working directory
// (latch.json, .mcp.json) and their servers; `latch project enable`
// turns their servers on from the next start, for the files as they are
// now (a changed file is off again); `latch project disable` turns them
// off again (config/project.go).

// projectDir is the folder whose project files are merged: the one latch
// starts in; "" when it cannot be known.
func projectDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	return dir
}

// newProjectCmd is `latch project [enable|disable]`.
func newProjectCmd(f *flags) *cobra.Command {
	return &cobra.Command{
		Use:   "project [enable|disable]",
		Short: "this folder's latch.json and .mcp.json; enable turns their servers on",
		Long: "latch project lists the project files of this folder (latch.json, .mcp.json) and their servers;\n" +
			"latch project enable connects their servers at start, while the files stay as they are now;\n" +
			"latch project disable leaves their servers off again.",
		Example: "  latch project\n  latch project enable",
		RunE: func(cmd *cobra.Command, args []string) error {
			f.command = "project"
			switch {
			case len(args) == 0:
				f.project = "list"
			case len(args) == 1 && (args[0] == "enable" || args[0] == "disable"):
				f.project = args[0]
			default:
				return fmt.Errorf("latch project: give nothing, enable or disable, not %q", sanitize.Line(strings.Join(args, " ")))
			}
			return nil
		},
	}
}

// runProject runs `latch project [enable|disable]`.
func runProject(s *settings, sub string, stdout, stderr io.Writer) int {
	cfg := s.cfg
	if sub != "list" {
		files, err := config.EnableProject(cfg, sub == "enable", s.getenv)
		if err != nil {
			say(stderr, err.Error())
			return exitError
		}
		for _, pf := range files {
			verb := "on from the next start, while the file stays as it is"
			if sub == "disable" {
				verb = "off"
			}
			fmt.Fprintln(stdout, sanitize.Line(fmt.Sprintf("%s: servers %s %s", pf.Path, strings.Join(pf.Servers, ", "), verb)))
		}
		return exitOK
	}
	if len(cfg.Project) == 0 {
		say(stderr, errors.New("no project file (latch.json, .mcp.json) in "+cfg.ProjectDir).Error())
		return exitOK
	}
	for _, line := range cfg.Sources() {
		fmt.Fprintln(stdout, sanitize.Line(line))
	}
	for _, sv := range cfg.Servers {
		if sv.Project == "" {
			continue
		}
		what := sv.Command + " " + strings.Join(sv.Args, " ")
		if sv.Transport != "stdio" {
			what = sv.Transport + " server" // a URL may carry a secret: never shown
		}
		for _, secret := range sv.Secrets { // values of ${VAR}s that may be credentials
			if strings.TrimSpace(secret) != "" {
				what = strings.ReplaceAll(what, secret, "[redacted]")
			}
		}
		fmt.Fprintln(stdout, sanitize.Line(fmt.Sprintf("  %s: %s", sv.Name, strings.TrimSpace(what))))
	}
	return exitOK
}
