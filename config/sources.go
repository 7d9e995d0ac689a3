package config

import "fmt"

// Sources says, one line each, which files the config was read from: the
// person's own (or none), the files it imports, and the project files
// with whether their servers are on. latch policy list and /servers show
// them. Paths are as they were found; the caller sanitizes for a screen.
func (cfg *Config) Sources() []string {
	var out []string
	switch {
	case cfg.Path != "" && cfg.Foreign:
		out = append(out, "config "+cfg.Path+" (another app's file, read as it is)")
	case cfg.Path != "":
		out = append(out, "config "+cfg.Path)
	default:
		out = append(out, "config: none (defaults)")
	}
	for _, p := range cfg.Imported {
		out = append(out, "imported "+p)
	}
	for _, pf := range cfg.Project {
		line := "project " + pf.Path
		switch {
		case len(pf.Servers) == 0:
		case pf.Enabled:
			line += fmt.Sprintf(": servers %s enabled", quotedList(pf.Servers))
		default:
			line += fmt.Sprintf(": servers %s off until `latch project enable`", quotedList(pf.Servers))
		}
		out = append(out, line)
	}
	return out
}
