package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// serversDName is the folder of per-server files beside a config file:
// servers.d/NAME.json holds the settings of server NAME, the same keys as
// an entry of "mcpServers".
const serversDName = "servers.d"

// loadServersDOnly is Load without a config file: the servers of
// $XDG_CONFIG_HOME/latch/servers.d, if there is such a folder.
func loadServersDOnly(getenv func(string) string) (*Config, error) {
	def := DefaultPath(getenv)
	if def == "" {
		return &Config{}, nil
	}
	dir := filepath.Join(filepath.Dir(def), serversDName)
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return &Config{}, nil
	}
	l := &loader{getenv: getenv, dir: filepath.Dir(def), serversDir: dir}
	cfg := l.load([]byte("{}"))
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return cfg, nil
}

// serversD adds the servers of the files in l.serversDir to those of the
// main file, sorted by name. A file's name is its server's name
// (crm.json: server "crm", tools crm__…); files not ending in .json are
// not read. Every error names the file it is about.
func (l *loader) serversD(main []ServerConfig) []ServerConfig {
	if l.serversDir == "" {
		return main
	}
	entries, err := os.ReadDir(l.serversDir)
	if errors.Is(err, fs.ErrNotExist) {
		return main
	}
	if err != nil {
		l.errs = append(l.errs, fmt.Errorf("config %s: %v", l.serversDir, errUnwrap(err)))
		return main
	}
	if !l.privateEnough(l.serversDir) {
		return main
	}
	inMain := map[string]bool{}
	for _, s := range main {
		inMain[s.Name] = true
	}
	out := main
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() {
			continue
		}
		file := filepath.Join(l.serversDir, e.Name())
		if !validServerName(name) {
			l.errs = append(l.errs, fmt.Errorf("config %s: file name: %q is not a server name: must match [a-z0-9_-]{1,32} (then .json)", file, name))
			continue
		}
		if inMain[name] {
			l.errs = append(l.errs, fmt.Errorf("config %s: server %q: also in %s; a server's settings are in one file", file, name, l.mainName()))
			continue
		}
		if s, ok := l.serverFile(file, name); ok {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// mainName is how messages name the main config file.
func (l *loader) mainName() string {
	if l.path == "" {
		return "the config file"
	}
	return l.path
}

// serverFile reads one servers.d file: one server's settings, checked as
// an entry of "mcpServers" is, every message naming this file. Relative
// paths in it are relative to the servers.d folder.
func (l *loader) serverFile(file, name string) (ServerConfig, bool) {
	sub := &loader{path: file, dir: l.serversDir, getenv: l.getenv}
	defer func() {
		l.errs = append(l.errs, sub.errs...)
		l.warns = append(l.warns, sub.warns...)
	}()
	if !l.privateEnough(file) {
		return ServerConfig{}, false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		sub.errorf("", "", "%v", errUnwrap(err))
		return ServerConfig{}, false
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	raw, ok := sub.parse(data)
	if !ok {
		return ServerConfig{}, false
	}
	sub.duplicates(json.NewDecoder(bytes.NewReader(sub.std)), []string{"mcpServers", name})
	return sub.server(name, name, raw), true
}

// privateEnough refuses a servers.d folder or file that someone other
// than you (or root) may change, the folder holding it and the file a
// link leads to included (trust.go): its settings choose the
// commands latch runs.
func (l *loader) privateEnough(path string) bool { return l.trusted(path) }
