package session

import (
	"strings"

	"latch/permissions"
)

// forkModeNotice says plainly when a fork's mode, or a server's, is
// narrower than its parent's was, and why: a fork starts no wider than
// the mode it is started with (the config's, or --mode), so that it never
// holds more than either; /mode widens it again where the config allows.
// It is "" when the fork kept every mode of its parent's.
func forkModeNotice(parent, fork *SettingsEvent, fromFlag bool) string {
	if parent == nil || fork == nil {
		return ""
	}
	why := "the config's permissions.mode"
	if fromFlag {
		why = "--mode"
	}
	var out []string
	if pm, err := permissions.ParseMode(parent.Mode); err == nil && parent.Mode != fork.Mode {
		out = append(out, "mode "+fork.Mode+", not "+pm.String()+" as in the session it came from: a fork starts no wider than "+
			why+" ("+fork.Mode+"); /mode "+pm.String()+" widens it again")
	}
	for _, s := range sortedKeys(fork.ServerModes) {
		was, ok := parent.ServerModes[s]
		if !ok {
			was = parent.Mode
		}
		if pm, err := permissions.ParseMode(was); err == nil && was != fork.ServerModes[s] {
			out = append(out, "server "+s+": mode "+fork.ServerModes[s]+", not "+pm.String()+" (a fork starts no wider than "+why+")")
		}
	}
	return strings.Join(out, "; ")
}
