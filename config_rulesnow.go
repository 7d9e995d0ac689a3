package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"latch/config"
	"latch/permissions"
	"latch/session"
	"latch/ui/sanitize"
)

// configRules reads the argument rules of the config at path (and its
// servers.d) as the file is now: permissions.rules, then each server's
// own rules. A config that no longer loads is an error.
func configRules(path string, getenv func(string) string) ([]permissions.Rule, error) {
	cfg, err := config.Load(path, getenv)
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
	path, getenv := s.cfg.Path, s.getenv
	return func() ([]permissions.Rule, error) { return configRules(path, getenv) }
}

// parkedRuleNotice is the line an approval screen (latch approve, latch
// approvals) shows above a gateway's parked call when a deny rule of the
// config as it is now matches it: approving it will refuse it. It is ""
// when none does, or when the gateway runs on another config than this
// command read (its rules are checked by the gateway all the same). The
// gateway decides with the arguments it holds; the log's are redacted, so
// a rule on a credential's value shows only there.
func parkedRuleNotice(s *settings, p session.ParkedCall) string {
	return ruleNotices(s)(p)
}

// ruleNotices reads the config's rules once and returns parkedRuleNotice
// for each call of a list.
func ruleNotices(s *settings) func(session.ParkedCall) string {
	runs := gatewayRuns(s)
	rules, err := configRules(s.cfg.Path, s.getenv)
	pol := permissions.Policy{Rules: rules}
	if s.getenv != nil {
		pol.Home = s.getenv("HOME")
	}
	for _, sv := range s.cfg.Servers {
		pol.Servers = append(pol.Servers, sv.Name)
	}
	gate := permissions.NewGate(pol)
	return func(p session.ParkedCall) string {
		switch {
		case !slices.Contains(runs, p.Session):
			return ""
		case err != nil:
			first, _, _ := strings.Cut(err.Error(), "\n")
			return "the config no longer loads (" + first + ") — approving will refuse it"
		}
		c := permissions.Call{Server: p.Server, Name: p.Tool, Args: p.Arguments}
		if t, ok := strings.CutPrefix(p.Tool, p.Server+permissions.NamespaceSep); ok {
			c.Tool = t
		}
		r, denied := gate.DenyingRule(c, nil)
		if !denied {
			return ""
		}
		return "a rule now denies this call: " + r.Origin + " (" + r.Compact() + ") — approving will refuse it"
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
func listNotices(s *settings, calls []session.ParkedCall, w io.Writer) {
	notice := ruleNotices(s)
	for _, p := range calls {
		if !p.Waiting() || p.Client == "" {
			continue
		}
		if n := notice(p); n != "" {
			fmt.Fprintf(w, "%s: %s\n", sanitize.Line(p.CallID), sanitize.Line(n))
		}
	}
}
