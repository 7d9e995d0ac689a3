package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"time"

	"latch/config"
	"latch/permissions"
	"latch/session"
	"latch/themes"
)

// settings are the flags, environment and config file merged, in the order
// flag > environment > config file > built-in default.
type settings struct {
	cfg       *config.Config
	model     string
	host      *url.URL
	mode      string
	flagAllow []string           // --allow alone
	flagRules []permissions.Rule // --deny, then --allow in the compact form (flag_rules.go)
	theme     string
	keepAlive *time.Duration
	stateDir  string   // where session logs live
	themeFlag bool     // the theme came from --theme
	roots     []string // the config's roots, then --root's; nil: no roots are offered
	getenv    func(string) string
	cfgPath   string // the config file read, "" for none
	// leftOut are the servers not loaded for want of an ${input:…}
	// value, by name: what each needed (config/inputs.go).
	leftOut map[string]string
}

func loadSettings(f flags, getenv func(string) string) (*settings, error) {
	path, _ := config.Find(f.config, getenv)
	cfg, err := config.LoadWithProject(path, projectDir(), getenv) // project_cmd.go
	if err != nil {
		return nil, err
	}
	s := &settings{cfg: cfg, stateDir: session.StateDir(getenv), getenv: getenv, cfgPath: path}
	s.model = first(f.model, getenv("LATCH_MODEL"), cfg.Model)
	s.host = session.ParseHost(first(f.host, getenv("OLLAMA_HOST"), cfg.Ollama.Host))
	s.mode = first(f.mode, cfg.Permissions.Mode, "read_only")
	if _, err := permissions.ParseMode(s.mode); err != nil {
		return nil, fmt.Errorf("--mode: %w", err)
	}
	names := make([]string, len(cfg.Servers))
	for i, sv := range cfg.Servers {
		names[i] = sv.Name
	}
	s.flagAllow, s.flagRules, err = flagRules(f.allow, f.deny, names, getenv("HOME"))
	if err != nil {
		return nil, err
	}
	s.theme = first(f.theme, cfg.Theme, "auto")
	s.themeFlag = f.theme != ""
	if s.themeFlag {
		// An explicit flag must name a theme that exists; a broken theme
		// in the config file falls back to the default with a notice.
		if _, _, err := themes.FromEnv(s.theme, true, getenv, themes.ConfigHome(getenv)); err != nil {
			return nil, fmt.Errorf("--theme: %w", err)
		}
	}
	if d, ok := cfg.Ollama.KeepAliveDuration(); ok {
		s.keepAlive = &d
	}
	roots, err := flagRoots(cfg.Roots, f.roots, getenv("HOME"))
	if err != nil {
		return nil, err
	}
	s.roots = roots
	return s, nil
}

// flagRoots adds the --root directories (~ expanded, relative to the
// working directory; they must exist) to the config's roots, once each.
// nil when neither gives any: then no roots are offered.
func flagRoots(cfgRoots, flagDirs []string, home string) ([]string, error) {
	out := slices.Clone(cfgRoots)
	for _, d := range flagDirs {
		p, ok := config.ExpandHome(d, home)
		if !ok {
			return nil, fmt.Errorf("--root %s: ~ needs HOME, which is not set", d)
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("--root %s: %v", d, err)
		}
		fi, err := os.Stat(abs)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("--root %s: directory not found: %s", d, abs)
		case err != nil:
			return nil, fmt.Errorf("--root %s: cannot read %s: %v", d, abs, errors.Unwrap(err))
		case !fi.IsDir():
			return nil, fmt.Errorf("--root %s: not a directory: %s", d, abs)
		}
		if !slices.Contains(out, abs) {
			out = append(out, abs)
		}
	}
	return out, nil
}

// first returns the first non-empty value.
func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// policy is the permission policy of the config file and flags.
func (s *settings) policy() permissions.Policy {
	mode, _ := permissions.ParseMode(s.mode) // validated at load
	p := permissions.Policy{
		Mode: mode, ServerModes: map[string]permissions.Mode{}, ServerAllow: map[string][]string{},
		Allow: s.cfg.Permissions.Allow, FlagAllow: s.flagAllow,
	}
	if s.getenv != nil {
		p.Home = s.getenv("HOME")
	}
	p.Rules = append(p.Rules, s.flagRules...)
	p.Rules = append(p.Rules, s.cfg.Permissions.Rules...)
	for _, sv := range s.cfg.Servers {
		p.Servers = append(p.Servers, sv.Name)
	}
	for _, sv := range s.cfg.Servers {
		if sv.Mode != "" {
			if m, err := permissions.ParseMode(sv.Mode); err == nil {
				p.ServerModes[sv.Name] = m
			}
		}
		if len(sv.Allow) > 0 {
			p.ServerAllow[sv.Name] = sv.Allow
		}
		if sv.ApproveArgs == "exact" {
			p.ExactArgs = append(p.ExactArgs, sv.Name)
		}
		p.Rules = append(p.Rules, sv.Rules...)
	}
	return p
}
