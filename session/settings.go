package session

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"latch/mcp"
	"latch/permissions"
)

// TypeSettings is the event that records a session's permission settings.
const TypeSettings = "settings"

// SettingsEvent records the permission settings a session runs with: the
// mode, the per-server modes, the session grants and --allow. It is logged
// when the session starts and after every change, and the last one is
// restored on resume, so that a resumed session decides as it did.
type SettingsEvent struct {
	Header
	Mode        string            `json:"mode"`
	ServerModes map[string]string `json:"server_modes,omitempty"`
	// Grants are session grants: model-facing tool name → the digest of
	// the definition it was granted for.
	Grants    map[string]string `json:"grants,omitempty"`
	FlagAllow []string          `json:"flag_allow,omitempty"`
	// FlagRules are the argument rules of --allow and --deny, and of
	// /allow and /deny in the chat, each as given: `--deny *(*=~/.ssh/**)`.
	FlagRules []string `json:"flag_rules,omitempty"`
}

// settings is what the session knows of its own permission settings,
// besides the gate: the grants (the gate does not list their digests) and
// --allow.
type settings struct {
	grants    map[string]string
	flagAllow []string
}

// publishSettings logs the current settings.
func (s *Session) publishSettings() {
	ev := &SettingsEvent{Header: s.header(TypeSettings), Mode: s.gate.Mode().String()}
	for server, m := range s.gate.ServerModes() {
		if ev.ServerModes == nil {
			ev.ServerModes = map[string]string{}
		}
		ev.ServerModes[server] = m.String()
	}
	s.mu.Lock()
	if len(s.set.grants) > 0 {
		ev.Grants = maps.Clone(s.set.grants)
	}
	ev.FlagAllow = slices.Clone(s.set.flagAllow)
	s.mu.Unlock()
	for _, r := range s.gate.Rules() {
		if text := r.FlagText(); text != "" {
			ev.FlagRules = append(ev.FlagRules, text)
		}
	}
	s.publish(ev)
}

// grant records a session grant (the gate's and ours) and logs it.
func (s *Session) grant(c permissions.Call) {
	s.gate.GrantCall(c)
	s.mu.Lock()
	s.set.grants[c.Name] = c.Digest
	s.mu.Unlock()
	s.publishSettings()
}

// restoreSettings applies the last logged settings to o before the session
// is made: what a flag given now says wins, and is reported.
func restoreSettings(o *Options, last *SettingsEvent) (notices []string) {
	if last == nil {
		return nil
	}
	logged, err := permissions.ParseMode(last.Mode)
	switch {
	case err != nil:
	case o.ModeFromFlag && logged != o.Policy.Mode:
		notices = append(notices, "--mode "+o.Policy.Mode.String()+" overrides this session's mode "+logged.String())
	case !o.ModeFromFlag:
		o.Policy.Mode = logged
	}
	if len(last.ServerModes) > 0 {
		modes := maps.Clone(o.Policy.ServerModes)
		if modes == nil {
			modes = map[string]permissions.Mode{}
		}
		for server, name := range last.ServerModes {
			if m, err := permissions.ParseMode(name); err == nil {
				modes[server] = m
			}
		}
		o.Policy.ServerModes = modes
	}
	for _, a := range last.FlagAllow {
		if !slices.Contains(o.Policy.FlagAllow, a) {
			o.Policy.FlagAllow = append(slices.Clone(o.Policy.FlagAllow), a)
		}
	}
	return append(notices, restoreFlagRules(o, last.FlagRules)...)
}

// restoreFlagRules gives a resumed session back the --allow and --deny
// rules it ran with, and those of /allow and /deny (those given again now
// are kept once): a --deny forgotten on resume would let through what it
// refused. One that no longer compiles is reported, and left out.
func restoreFlagRules(o *Options, logged []string) (notices []string) {
	have := map[string]bool{}
	for _, r := range o.Policy.Rules {
		have[r.FlagText()] = true
	}
	rules := slices.Clone(o.Policy.Rules)
	for _, text := range logged {
		flag, value, ok := strings.Cut(text, " ")
		if have[text] || !ok {
			continue
		}
		r, err := permissions.FlagRule(flag, value, o.Policy.Home)
		if err != nil {
			notices = append(notices, "this session's "+flag+" rule is left out: "+err.Error())
			continue
		}
		have[text] = true
		rules = append(rules, r)
	}
	o.Policy.Rules = rules
	return notices
}

// parkedDef is what a parked call was approved for: its tool's definition
// when it was parked.
type parkedDef struct{ digest, description string }

// changed says how tool differs from the definition the call was parked
// with, or "" when it does not (or the log did not record it).
func (d parkedDef) changed(tool mcp.Tool) string {
	switch {
	case d.digest == "" || d.digest == tool.Digest:
		return ""
	case d.description != tool.Description:
		return fmt.Sprintf("its description was %q, now %q", clip(d.description), clip(tool.Description))
	}
	return "its input schema or hints changed"
}

// clip shortens s for a message.
func clip(s string) string { return clipTo(s, 80) }

// clipTo shortens s to n runes, marking the cut with "…".
func clipTo(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// AddRule adds an argument rule for the rest of the session, given as
// /allow or /deny (flag) takes it: a namespaced tool's name, or the
// compact form. It is logged with the settings, so a resumed session
// keeps it.
func (s *Session) AddRule(flag, text string) (permissions.Rule, error) {
	r, err := permissions.FlagRule(flag, text, s.gate.Home())
	if err != nil {
		return r, err
	}
	if r.Spec.Tool != "*" {
		if err := permissions.CheckEntry(r.Spec.Tool, s.ServerNames()); err != nil {
			return permissions.Rule{}, fmt.Errorf("%s: tool: %v", r.Origin, err)
		}
		if len(permissions.Readings(r.Spec.Tool, s.ServerNames())) == 0 {
			return permissions.Rule{}, fmt.Errorf("%s: tool: %q names no configured server's tool (server__tool, or *)", r.Origin, r.Spec.Tool)
		}
	}
	s.gate.AddRule(r)
	s.publishSettings()
	return r, nil
}
