package cli

import (
	"errors"
	"fmt"
	"latch/words"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"latch/ui/sanitize"
)

// Usage errors are one line (say prints it, run exits 2): what was wrong,
// the nearest flag or command when one is close, and which --help to read.
// Every word a person typed is sanitized: an argument may hold escapes.

// flagError words pflag's errors: the command, the flag as typed, and the
// nearest of the command's flags.
func flagError(cmd *cobra.Command, err error) error {
	path := cmd.CommandPath()
	help := fmt.Sprintf("(see %s --help)", path)
	if !cmd.HasParent() {
		// say puts "latch:" in front already
		err = flagErrorWords(cmd, err, help)
		return err
	}
	return fmt.Errorf("%s: %w", path, flagErrorWords(cmd, err, help))
}

// flagErrorWords is flagError's message without the command's name.
func flagErrorWords(cmd *cobra.Command, err error, help string) error {
	var notExist *pflag.NotExistError
	var noValue *pflag.ValueRequiredError
	switch {
	case errors.As(err, &notExist) && chatOnly(cmd, notExist) != "":
		name := chatOnly(cmd, notExist)
		if name == "--serve" {
			return errors.New("--serve ADDR goes with the chat; for a gateway alone: latch serve --listen ADDR")
		}
		return fmt.Errorf("%s goes with the chat (latch without a command)", name)
	case errors.As(err, &notExist) && len(notExist.GetSpecifiedShortnames()) > 1:
		// -mdoe: a long name with one dash (Go's flag package took them)
		typed := notExist.GetSpecifiedShortnames()
		if near := nearestFlag(cmd, typed); near != "" {
			return fmt.Errorf("unknown flag -%s; did you mean --%s? %s", sanitize.Line(typed), near, help)
		}
		return fmt.Errorf("unknown flag -%s %s", sanitize.Line(typed), help)
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() != "":
		return fmt.Errorf("unknown flag -%s %s", sanitize.Line(notExist.GetSpecifiedName()), help)
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		if near := nearestFlag(cmd, name); near != "" {
			return fmt.Errorf("unknown flag --%s; did you mean --%s? %s", sanitize.Line(name), near, help)
		}
		return fmt.Errorf("unknown flag --%s %s", sanitize.Line(name), help)
	case errors.As(err, &noValue):
		name := "--" + noValue.GetSpecifiedName()
		if noValue.GetSpecifiedShortnames() != "" {
			name = "-" + noValue.GetSpecifiedName()
		}
		return fmt.Errorf("%s needs a value %s", sanitize.Line(name), help)
	}
	return fmt.Errorf("%s %s", sanitize.Line(err.Error()), help)
}

// chatOnly is the flag as typed when a subcommand was given one of the
// chat's own flags (-p, --continue, --serve …), or "".
func chatOnly(cmd *cobra.Command, e *pflag.NotExistError) string {
	if !cmd.HasParent() {
		return ""
	}
	chat := cmd.Root().LocalNonPersistentFlags()
	name := e.GetSpecifiedName()
	switch {
	case e.GetSpecifiedShortnames() != "" && chat.ShorthandLookup(name) != nil:
		return "-" + name
	case e.GetSpecifiedShortnames() == "" && chat.Lookup(name) != nil:
		return "--" + name
	}
	return ""
}

// rootArgs refuses words after latch's flags that are not a command: a
// prompt without -p, or a command mistyped (with the nearest named).
func rootArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	arg := sanitize.Line(args[0])
	if near := cmd.SuggestionsFor(args[0]); len(near) > 0 {
		return fmt.Errorf("unknown command %q; did you mean latch %s? (see latch --help)", arg, near[0])
	}
	return fmt.Errorf("unexpected argument %q: not a command (see latch --help; a prompt goes after -p)", arg)
}

// noArgs refuses any argument, naming the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("%s: unexpected argument %q", cmd.CommandPath(), sanitize.Line(args[0]))
	}
	return nil
}

// nearestFlag is the name of cmd's flag (its own or inherited) nearest
// to name, when it is a typo's distance away: "" when none is.
func nearestFlag(cmd *cobra.Command, name string) string {
	best, bestD := "", 3 // within 2 edits, or 1 for a short name
	if len(name) <= 4 {
		bestD = 2
	}
	cmd.Flags().VisitAll(func(fl *pflag.Flag) {
		if fl.Hidden {
			return
		}
		d := words.Distance(strings.ToLower(name), fl.Name)
		if strings.HasPrefix(fl.Name, name) && len(name) >= 3 {
			d = 1
		}
		if d < bestD {
			best, bestD = fl.Name, d
		}
	})
	return best
}

// oldLongFlags rewrites the single-dash long flags Go's flag package took
// (-config FILE, -mode ask, -full …, which latch's docs and people's
// scripts use) to pflag's double dash, and --p/--o to -p/-o, before cobra
// parses: pflag reads -config as the letters c, o, n …, and its
// NormalizeFunc sees only names already split that way. Only names that
// are some command's flag are rewritten; a flag's value (the word after a
// flag that takes one) and everything after "--" are left as they are,
// and so is a completion request (cobra's __complete) with its partial
// words.
func oldLongFlags(root *cobra.Command, args []string) []string {
	if len(args) > 0 && strings.HasPrefix(args[0], "__complete") {
		return args
	}
	takesValue := map[string]bool{} // flag name → whether it takes a value
	for _, c := range allCommands(root) {
		for _, fs := range []*pflag.FlagSet{c.Flags(), c.PersistentFlags()} {
			fs.VisitAll(func(fl *pflag.Flag) { takesValue[fl.Name] = fl.NoOptDefVal == "" })
		}
	}
	takesValue["help"], takesValue["p"], takesValue["o"] = false, true, true
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		out = append(out, a)
		if a == "--" {
			return append(out, args[i+1:]...)
		}
		name, hasValue := strings.CutPrefix(a, "--")
		if !hasValue {
			name, hasValue = strings.CutPrefix(a, "-")
		}
		if !hasValue || name == "" {
			continue
		}
		name, _, inline := strings.Cut(name, "=")
		value, known := takesValue[name]
		if !known {
			continue
		}
		switch {
		case len(name) > 1 && !strings.HasPrefix(a, "--"):
			out[len(out)-1] = "-" + a
		case len(name) == 1 && strings.HasPrefix(a, "--"):
			out[len(out)-1] = a[1:]
		}
		if value && !inline && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}
