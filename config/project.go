package config

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"latch/permissions"
)

// A project folder (the one latch starts in) may hold latch.json
// (latch's own format) and .mcp.json (Claude Code's). Both are merged onto
// the global config, in that order. A project file is someone else's
// code, cloned with the project, so:
//
//   - its servers join the global ones, but are off (not connected) until
//     the person enables the file once (`latch project enable` in that
//     folder; /connect NAME starts one for the session alone). The choice
//     is kept per folder and per content of the file (projects.go): a
//     changed file asks again. A server the global config names already
//     is the global one; the project's is left out, with a notice.
//   - its settings override the global ones key by key (model, ollama's
//     options, theme, system_prompt, instructions, …), but never those
//     that choose where the conversation goes or what is reachable
//     (ollama.host, roots, serve, system_prompt_file, import): those are
//     ignored with a notice.
//   - it can only narrow the gate: a mode stricter than the global one
//     (or a server's mode stricter than the mode it would have), deny
//     rules; never an allow-list, an allow or ask rule (an ask rule turns
//     read_only's refusal into a question), a looser mode, or anything
//     that takes a global rule away. What it cannot do is ignored, with a
//     notice saying so.

// ProjectFileNames are the files of a project folder merged onto the
// global config, in order.
var ProjectFileNames = []string{"latch.json", ".mcp.json"}

// ProjectFile is a project file that was merged.
type ProjectFile struct {
	Path    string   // absolute
	Hash    string   // sha256 of its content, hex: what enabling it covers
	Servers []string // the servers it added
	Enabled bool     // the person enabled this content of the file
}

// LoadWithProject is Load(path), then the project files of dir merged on
// (above); dir "" merges none. Problems of a project file are errors
// naming it, as those of the global file are.
func LoadWithProject(path, dir string, getenv func(string) string) (*Config, error) {
	cfg, err := Load(path, getenv)
	if err != nil || dir == "" {
		return cfg, err
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	cfg.ProjectDir = dir
	enabled := readProjects(getenv)[projectKey(dir)]
	var errs []error
	for _, name := range ProjectFileNames {
		errs = append(errs, cfg.mergeProjectFile(filepath.Join(dir, name), enabled[name], getenv)...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return cfg, nil
}

// mergeProjectFile merges one project file onto cfg; enabledHash is the
// content the person enabled ("" for none).
func (cfg *Config) mergeProjectFile(p, enabledHash string, getenv func(string) string) []error {
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return []error{fmt.Errorf("config %s: %v", p, errUnwrap(err))}
	case sameFile(p, cfg.Path) || slices.ContainsFunc(cfg.Imported, func(q string) bool { return sameFile(p, q) }):
		return nil // the global config itself, started in its own folder
	}
	l := &loader{path: p, dir: filepath.Dir(p), getenv: getenv, project: true, mark: cfg.inputMark}
	if !l.trusted(p) { // refused as any config file is: others may change it
		return l.errs
	}
	pc := l.load(trimBOM(data))
	if len(l.errs) > 0 {
		return l.errs
	}
	cfg.inputMark = cmp.Or(cfg.inputMark, l.mark)
	sum := sha256.Sum256(data)
	pf := ProjectFile{Path: p, Hash: hex.EncodeToString(sum[:])}
	pf.Enabled = enabledHash == pf.Hash
	n := &narrowing{cfg: cfg, pc: pc, warn: func(scope, field, format string, args ...any) {
		l.warnf(scope, field, format, args...)
	}}
	n.settings()
	n.permissions()
	pf.Servers = n.servers(pf.Enabled)
	cfg.Warnings = append(cfg.Warnings, pc.Warnings...)
	cfg.Warnings = append(cfg.Warnings, l.warns[len(pc.Warnings):]...)
	if len(pf.Servers) > 0 && !pf.Enabled {
		cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("config %s: this project file adds %s, off until you enable them: "+
			"run `latch project enable` in this folder (kept until the file changes), or /connect NAME for this session",
			p, quotedList(pf.Servers)))
	}
	cfg.Project = append(cfg.Project, pf)
	return nil
}

// narrowing merges one project file's Config (pc) onto cfg.
type narrowing struct {
	cfg, pc *Config
	warn    func(scope, field, format string, args ...any)
}

// settings overrides cfg's settings by the project's, key by key; those
// a project may not set are ignored, with a notice.
func (n *narrowing) settings() {
	cfg, pc := n.cfg, n.pc
	cfg.Model = cmp.Or(pc.Model, cfg.Model)
	cfg.Theme = cmp.Or(pc.Theme, cfg.Theme)
	cfg.Mouse = cfg.Mouse || pc.Mouse
	cfg.SystemPrompt = cmp.Or(pc.SystemPrompt, cfg.SystemPrompt)
	badInstructions := strings.ContainsAny(pc.Instructions, `/\`) || pc.Instructions == ".."
	if !badInstructions {
		cfg.Instructions = cmp.Or(pc.Instructions, cfg.Instructions)
	}
	o, po := &cfg.Ollama, pc.Ollama
	if po.Think != nil || po.ThinkLevel != "" {
		o.Think, o.ThinkLevel = po.Think, po.ThinkLevel
	}
	o.Truncate = o.Truncate || po.Truncate
	o.KeepAlive = cmp.Or(po.KeepAlive, o.KeepAlive)
	if po.TextToolCalls != nil {
		o.TextToolCalls = po.TextToolCalls
	}
	o.MaxTools = cmp.Or(po.MaxTools, o.MaxTools)
	o.EmbedModel = cmp.Or(po.EmbedModel, o.EmbedModel)
	if po.CompactAt != 0 || po.NoCompact {
		o.CompactAt, o.NoCompact = po.CompactAt, po.NoCompact
	}
	if len(po.Options) > 0 && o.Options == nil {
		o.Options = map[string]any{}
	}
	maps.Copy(o.Options, po.Options)
	for _, x := range []struct {
		key string
		set bool
	}{
		{"ollama.host", po.Host != ""}, {"roots", len(pc.Roots) > 0}, {"serve", !reflect.DeepEqual(pc.Serve, ServeConfig{})},
		{"system_prompt_file", pc.SystemPromptFile != ""}, {"instructions (a file name in this folder only)", badInstructions},
	} {
		if x.set {
			n.warn("", x.key, "ignored in a project file (it is set in your own config only)")
		}
	}
	if len(pc.Inputs) > 0 && cfg.Inputs == nil {
		cfg.Inputs = map[string]Input{}
	}
	maps.Copy(cfg.Inputs, pc.Inputs)
}

// permissions takes the project's mode if it is stricter, and its deny
// rules; nothing else.
func (n *narrowing) permissions() {
	cfg, p := n.cfg, n.pc.Permissions
	if p.Mode != "" {
		if have := cmp.Or(cfg.Permissions.Mode, "read_only"); Stricter(p.Mode, have) {
			cfg.Permissions.Mode = p.Mode
		} else if p.Mode != have {
			n.warn("", "permissions.mode", "%q is ignored: a project file can only make the mode stricter than %q", p.Mode, have)
		}
	}
	if len(p.Allow) > 0 {
		n.warn("", "permissions.allow", "ignored: a project file cannot allow tools")
	}
	cfg.Permissions.Rules = append(cfg.Permissions.Rules, n.denyOnly("", "permissions.rules", p.Rules)...)
}

// denyOnly keeps the deny rules of rules.
func (n *narrowing) denyOnly(scope, field string, rules []permissions.Rule) []permissions.Rule {
	var out []permissions.Rule
	dropped := 0
	for _, r := range rules {
		if r.Decision == permissions.Deny {
			out = append(out, r)
		} else {
			dropped++
		}
	}
	if dropped > 0 {
		n.warn(scope, field, "%d allow or ask rule(s) ignored: a project file can only add deny rules", dropped)
	}
	return out
}

// servers adds the project's servers that the global config does not
// name, narrowed, off unless on; it returns their names.
func (n *narrowing) servers(on bool) []string {
	cfg := n.cfg
	mode := cmp.Or(cfg.Permissions.Mode, "read_only")
	var added []string
	for _, s := range n.pc.Servers {
		srv := fmt.Sprintf("server %q", s.Name)
		if slices.ContainsFunc(cfg.Servers, func(g ServerConfig) bool { return g.Name == s.Name }) {
			n.warn(srv, "", "also in your own config, whose server is used; the project's is left out")
			continue
		}
		if len(s.Allow) > 0 {
			n.warn(srv, "allow", "ignored: a project file cannot allow tools")
			s.Allow = nil
		}
		if s.Mode != "" && !Stricter(s.Mode, mode) {
			n.warn(srv, "mode", "%q is ignored: a project file can only make a server's mode stricter than %q", s.Mode, mode)
			s.Mode = ""
		}
		s.Rules = n.denyOnly(srv, "rules", s.Rules)
		if !on && len(s.Inputs) > 0 {
			// Not asked for at start: a file not enabled puts no question
			// to the person (it could ask for anything).
			n.warn(srv, "", "needs %s: asked for once the file is enabled (`latch project enable`); left out until then", inputRefs(s.Inputs))
			continue
		}
		if !on {
			s.Disabled = true
		}
		s.Project = n.pc.Path
		cfg.Servers = append(cfg.Servers, s)
		added = append(added, s.Name)
	}
	slices.SortFunc(cfg.Servers, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return added
}

// modeSeverity is, for each mode, what becomes of a call: with a deny
// rule, an ask rule, an allow rule on a tool not allow-listed, and no
// rule on a tool not allow-listed (docs/PERMISSIONS.md); 3 refused, 2 a
// person decides, 1 runs.
var modeSeverity = map[string][4]int{
	"read_only": {3, 2, 1, 3},
	"ask":       {3, 2, 1, 2},
	"approve":   {3, 2, 2, 2},
	"auto":      {3, 2, 1, 1},
}

// Stricter reports whether mode a is as strict as b or stricter in every
// case (and differs): read_only and approve are stricter than ask, ask
// than auto; read_only and approve are not comparable.
func Stricter(a, b string) bool {
	sa, okA := modeSeverity[a]
	sb, okB := modeSeverity[b]
	if !okA || !okB || a == b {
		return false
	}
	for i := range sa {
		if sa[i] < sb[i] {
			return false
		}
	}
	return true
}

// sameFile reports whether a and b are one file.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// quotedList is names as "a", "b", the first 10 of them and how many
// more: a file of thousands of servers makes one short notice.
func quotedList(names []string) string {
	var q []string
	for i, n := range names {
		if i == 10 {
			q = append(q, fmt.Sprintf("and %d more (latch project lists them)", len(names)-10))
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	return strings.Join(q, ", ")
}

func trimBOM(data []byte) []byte {
	return []byte(strings.TrimPrefix(string(data), "\xef\xbb\xbf"))
}
