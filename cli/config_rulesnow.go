package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"latch/config"
	"latch/mcp"
	"latch/permissions"
	"latch/session"
	"latch/ui/sanitize"
)

// configRules reads the argument rules of the config at path (and its
// servers.d, and the project files of dir) as the files are now:
// permissions.rules, then each server's own rules. A config that no
// longer loads is an error.
func configRules(path, dir string, getenv func(string) string) ([]permissions.Rule, error) {
	cfg, err := config.LoadWithProject(path, dir, getenv)
	if err != nil {
		return nil, err
	}
	rules := slices.Clone(cfg.Permissions.Rules)
	for _, sv := range cfg.Servers {
		rules = append(rules, sv.Rules...)
	}
	return rules, nil
}

// rulesNow is the session's Options.RulesNow: the settings' config read
// again, only for its rules, each time a person's approval is acted on.
func rulesNow(s *settings) func() ([]permissions.Rule, error) {
	path, dir, getenv := s.cfg.Path, s.cfg.ProjectDir, s.getenv
	return func() ([]permissions.Rule, error) { return configRules(path, dir, getenv) }
}

// ruleNotices returns, for a gateway's parked call, the line an approval
// screen (latch approve, latch approvals) shows above it when a deny rule
// of the config as it is now matches it: approving it will refuse it. It
// is "" when none does, or when the gateway runs on another config than
// this command read (its rules are checked by the gateway all the same).
// g is the command's gate (rulesGate): the command has just read the
// config, so its rules are the rules of the moment. The call is judged
// with the bases the gateway's session gives its server. The gateway
// decides with the arguments it holds; the log's are redacted, so a rule
// on a credential's value shows only there.
func ruleNotices(s *settings, g *permissions.Gate) func(session.ParkedCall) string {
	runs := gatewayRuns(s)
	servers := mcp.New(serverConfigs(s.cfg.Servers), mcp.Options{Getenv: s.getenv, Roots: s.roots})
	return func(p session.ParkedCall) string {
		if !slices.Contains(runs, p.Session) {
			return ""
		}
		c := permissions.Call{Server: p.Server, Name: p.Tool, Args: p.Arguments, Bases: servers.Bases(p.Server), Client: p.Caller}
		if t, ok := strings.CutPrefix(p.Tool, p.Server+permissions.NamespaceSep); ok {
			c.Tool = t
		}
		r, denied := g.DenyingRule(c, nil)
		if !denied {
			return ""
		}
		return session.DeniedNow(r) + " — approving will refuse it"
	}
}

// writeNotice writes notice, if any, as the approval screen's line above
// the call's arguments.
func writeNotice(b *strings.Builder, notice string) {
	if notice != "" {
		b.WriteString("  NOTE       " + sanitize.Line(notice) + "\n")
	}
}

// listNotices writes, after latch approvals' table, a line for each
// waiting gateway call a rule of the config now denies.
func listNotices(s *settings, g *permissions.Gate, calls []session.ParkedCall, w io.Writer) {
	notice := ruleNotices(s, g)
	for _, p := range calls {
		if !p.Waiting() || p.Client == "" {
			continue
		}
		if n := notice(p); n != "" {
			fmt.Fprintf(w, "%s: %s\n", sanitize.Line(p.CallID), sanitize.Line(n))
		}
	}
}
