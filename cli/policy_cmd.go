package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"latch/permissions"
	"latch/ui/sanitize"
)

// policyArgs is what follows `latch policy`.
type policyArgs struct {
	sub            string         // "check" or "list"
	tool           string         // check: the namespaced tool
	args           map[string]any // check: the call's arguments
	nonInteractive bool           // check --non-interactive: as -p decides, with no one to ask
}

// Exit statuses of `latch policy check`: the call would run, be put to a
// person (asked or parked), or be denied.
const (
	exitPolicyAllow = exitOK
	exitPolicyDeny  = exitError
	exitPolicyAsk   = exitParked
)

// newPolicyCmd is `latch policy check TOOL 'JSON-ARGS' [--mode MODE]
// [--config FILE] [--non-interactive]` and `latch policy list`. Its
// --mode and --config are latch's own (persistent), so they may come
// before or after the subcommand.
func newPolicyCmd(f *flags) *cobra.Command {
	a := &f.policy
	cmd := &cobra.Command{
		Use:   "policy (check TOOL 'JSON-ARGS' | list)",
		Short: "the gate's decision on a call and the rule behind it; the rules in effect",
		Example: `  latch policy check fs__read_text_file '{"path": "~/src/a.go"}' --mode ask
  latch policy list --config ./latch.json`,
		RunE: func(_ *cobra.Command, args []string) error {
			f.command = "policy"
			if len(args) == 0 {
				return errors.New("latch policy: give check TOOL 'JSON-ARGS' or list (see latch policy --help)")
			}
			return fmt.Errorf("latch policy: %q is not a subcommand (check, list)", sanitize.Line(args[0]))
		},
	}
	cmd.PersistentFlags().BoolVar(&a.nonInteractive, "non-interactive", false, "check: decide as -p does, with no one to ask (ask becomes deny)")
	check := &cobra.Command{
		Use:   "check TOOL 'JSON-ARGS'",
		Short: "the gate's decision on that call, and the rule or default behind it (exit 0 allow, 3 ask or park, 1 deny, 2 usage)",
		Example: `  latch policy check fs__read_text_file '{"path": "~/src/a.go"}'
  latch policy check --allow 'fs__write_file(path=~/src/**)' fs__write_file '{"path": "~/src/a.go"}'`,
		RunE: func(_ *cobra.Command, args []string) error {
			f.command, a.sub = "policy", "check"
			if len(args) != 2 {
				return errors.New("latch policy check: give TOOL and 'JSON-ARGS', e.g. latch policy check fs__read_text_file '{\"path\": \"~/src/a.go\"}'")
			}
			a.tool = args[0]
			dec := json.NewDecoder(strings.NewReader(args[1]))
			dec.UseNumber()
			if err := dec.Decode(&a.args); err != nil || a.args == nil || dec.More() {
				return fmt.Errorf("latch policy check: the arguments must be a JSON object, like '{\"path\": \"~/src/a.go\"}'")
			}
			return nil
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "the modes, allow-list and rules in effect, with where each comes from",
		Args:  noArgs,
		RunE: func(*cobra.Command, []string) error {
			f.command, a.sub = "policy", "list"
			return nil
		},
	}
	cmd.AddCommand(check, list)
	return cmd
}

// runPolicy runs `latch policy check` or `latch policy list`. The gate
// is built from the options a session would get (sessionOptions), so the
// check decides exactly as the live gate does, before any grant.
func runPolicy(s *settings, f flags, stdout, stderr io.Writer) int {
	o := sessionOptions(s, f, f.policy.nonInteractive)
	g := permissions.NewGate(o.Policy)
	g.SetInteractive(!o.NonInteractive)
	if f.policy.sub == "list" {
		fmt.Fprintln(stdout, sanitize.Text("read from:\n  "+strings.Join(s.cfg.Sources(), "\n  ")+"\n"))
		listPolicy(g, o.Policy, stdout)
		return exitOK
	}
	c, err := policyCall(o.Policy, f.policy.tool, f.policy.args)
	if err != nil {
		say(stderr, err.Error())
		return exitUsage
	}
	c.Bases = serverBases(o, c.Server)
	v := g.Decide(c)
	fmt.Fprintln(stdout, verdictWord(v.Decision))
	fmt.Fprintln(stdout, "  by:     "+sanitize.Line(decidedBy(g, v, c)))
	fmt.Fprintln(stdout, "  reason: "+sanitize.Line(v.Reason))
	printPathReadings(stdout, g, c)
	switch v.Decision {
	case permissions.Allow:
		return exitPolicyAllow
	case permissions.AskUser, permissions.Park:
		return exitPolicyAsk
	}
	return exitPolicyDeny
}

// policyCall is the call latch policy check decides on: the tool read
// against the configured servers, with args. Numbers are json.Number,
// as the gate gets a client's or a model's: their exact value.
func policyCall(p permissions.Policy, tool string, args map[string]any) (permissions.Call, error) {
	rs := permissions.Readings(tool, p.Servers)
	switch len(rs) {
	case 0:
		return permissions.Call{}, fmt.Errorf("latch policy check: %q names no configured server's tool (server__tool; servers: %s)",
			sanitize.Line(tool), strings.Join(p.Servers, ", "))
	case 1:
	default:
		return permissions.Call{}, fmt.Errorf("latch policy check: %v", permissions.CheckEntry(tool, p.Servers))
	}
	return permissions.Call{Server: rs[0].Server, Tool: rs[0].Tool, Name: tool, Args: args}, nil
}

// verdictWord is how latch policy check says a decision.
func verdictWord(d permissions.Decision) string {
	switch d {
	case permissions.Allow:
		return "allow"
	case permissions.AskUser:
		return "ask"
	case permissions.Park:
		return "park"
	}
	return "deny"
}

// decidedBy names what produced the verdict: the rule, the allow-list
// entry, or the mode.
func decidedBy(g *permissions.Gate, v permissions.Verdict, c permissions.Call) string {
	switch {
	case v.Rule != "":
		for _, r := range g.Rules() {
			if r.Origin == v.Rule {
				return "rule " + r.Compact() + " (" + r.Origin + ")"
			}
		}
		return "rule " + v.Rule
	case v.Source != "":
		return "allow-list (" + string(v.Source) + ")"
	}
	mode, overridden := g.ServerMode(c.Server)
	if overridden {
		return "the mode of server " + c.Server + ": " + mode.String()
	}
	return "the mode: " + mode.String() + " (nothing listed, no rule matched)"
}

// listPolicy prints the modes, the allow-list and the rules in effect,
// each with where it comes from, in the order the gate reads the rules.
func listPolicy(g *permissions.Gate, p permissions.Policy, out io.Writer) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "mode: %s\n", g.Mode())
	for _, server := range p.Servers {
		if m, overridden := g.ServerMode(server); overridden {
			fmt.Fprintf(&b, "mode of %s: %s\n", server, m)
		}
	}
	b.WriteString("\nallow-list:\n")
	entries := g.AllowList()
	if len(entries) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, e := range entries {
		fmt.Fprintf(&b, "  %-40s %s\n", e.Name, e.Source)
	}
	b.WriteString("\nrules (deny wins over ask, ask over allow):\n")
	rules := g.Rules()
	if len(rules) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, r := range rules {
		fmt.Fprintf(&b, "  %-5s %s\n        from %s\n", r.DecisionName(), r.Compact(), r.Origin)
	}
	_, _ = out.Write([]byte(sanitize.Text(b.String())))
}
