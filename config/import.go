package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// latch's settings beside another app's servers, two ways:
//
//   - "import" in latch's own file names other apps' files (a path, or a
//     list of them; ~ expanded, relative to the file's folder): their
//     servers (and VS Code inputs) join latch's, read as those apps write
//     them, every problem named in the file it is in. latch writes its
//     settings (the model picker's Ctrl+S, the A step's rules) into its own
//     file, never into an imported one. A server of the same name in
//     latch's file wins, with a notice. An imported file imports nothing
//     further.
//   - a top-level "latch" object in another app's file holds latch's
//     settings (model, ollama, permissions, theme, …): read as if at the
//     top of latch's own file. latch still writes nothing into that file:
//     to keep a model from the picker, use "import" instead.

// latchSectionKeys are the keys of a "latch" object in another app's
// file: latch's settings, not its servers (the file's own).
var latchSectionKeys = []string{"model", "ollama", "permissions", "theme", "mouse", "roots", "serve",
	"system_prompt", "system_prompt_file", "instructions"}

// latchSection moves the keys of another app's "latch" object to the top
// of top, where latch's own file has them.
func (l *loader) latchSection(top map[string]json.RawMessage) {
	raw, ok := top["latch"]
	if !ok {
		return
	}
	delete(top, "latch")
	obj, ok := l.object("", "latch", raw)
	if !ok {
		return
	}
	l.unknownKeys("", "latch", obj, latchSectionKeys)
	for _, k := range latchSectionKeys {
		if v, ok := obj[k]; ok {
			top[k] = v
		}
	}
}

// importPaths reads "import": a path or a list of paths, made absolute.
func (l *loader) importPaths(raw json.RawMessage) []string {
	if raw == nil {
		return nil
	}
	var list []string
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		list, _ = l.strList("", "import", raw)
	} else if s, ok := l.str("", "import", raw); ok {
		list = []string{s}
	}
	var out []string
	for i, p := range list {
		if p == "" {
			l.errorf("", fmt.Sprintf("import[%d]", i), "must not be empty")
			continue
		}
		out = append(out, l.checkPath("", "import", p, false, false))
	}
	return out
}

// imports adds the servers and inputs of the files "import" names to cfg.
func (l *loader) imports(raw json.RawMessage, cfg *Config) {
	paths := l.importPaths(raw)
	if len(paths) > 0 && l.project {
		l.warnf("", "import", "ignored in a project file (it is set in your own config only)")
		return
	}
	if len(paths) > 0 && l.imported {
		l.errorf("", "import", "an imported file imports nothing further")
		return
	}
	for _, p := range paths {
		sub := l.importFile(p)
		if sub == nil {
			continue
		}
		for _, s := range sub.Servers {
			if i := slices.IndexFunc(cfg.Servers, func(o ServerConfig) bool { return o.Name == s.Name }); i >= 0 {
				l.warnf(fmt.Sprintf("server %q", s.Name), "", "also in %s, which is imported; this file's settings are used", p)
				continue
			}
			cfg.Servers = append(cfg.Servers, s)
		}
		if len(sub.Inputs) > 0 && cfg.Inputs == nil {
			cfg.Inputs = map[string]Input{}
		}
		maps.Copy(cfg.Inputs, sub.Inputs)
		cfg.Imported = append(cfg.Imported, p)
	}
	slices.SortFunc(cfg.Servers, func(a, b ServerConfig) int { return cmpString(a.Name, b.Name) })
}

// importFile loads one imported file; nil when it cannot be (its problems
// are l's, each naming the file).
func (l *loader) importFile(p string) *Config {
	data, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			l.errs = append(l.errs, fmt.Errorf("config %s: import: file not found: %s", l.path, p))
		} else {
			l.errs = append(l.errs, fmt.Errorf("config %s: import: cannot read %s: %v", l.path, p, errUnwrap(err)))
		}
		return nil
	}
	sub := &loader{path: p, dir: filepath.Dir(p), getenv: l.getenv, imported: true, mark: l.mark}
	defer func() {
		l.mark = sub.mark // one mark for every ${input:ID} of the load
		l.errs = append(l.errs, sub.errs...)
		l.warns = append(l.warns, sub.warns...)
	}()
	if !sub.trusted(p) { // its servers choose the commands latch runs
		return nil
	}
	return sub.load(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
