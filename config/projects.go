package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// The project files a person enabled are kept in
// $XDG_STATE_HOME/latch/projects.json (~/.local/state/latch/…): for each
// folder, each file's name and the sha256 of the content enabled. A file
// whose content changed since is off again until enabled again.

// projectState is the file's content.
type projectState struct {
	Projects map[string]map[string]string `json:"projects"` // folder -> file name -> sha256
}

// ProjectStateFile is where enabled project files are kept.
func ProjectStateFile(getenv func(string) string) string {
	base := getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "latch", "projects.json")
}

// projectKey is the folder as the state file names it: absolute, links
// resolved.
func projectKey(dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// readProjects reads the state file; a missing or unreadable one enables
// nothing (fails closed).
func readProjects(getenv func(string) string) map[string]map[string]string {
	p := ProjectStateFile(getenv)
	if p == "" {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var st projectState
	if json.Unmarshal(data, &st) != nil {
		return nil
	}
	return st.Projects
}

// EnableProject keeps cfg's project files, as they are now, as enabled
// (on false: forgets them), so that their servers connect at start from
// then on. It returns the files it changed.
func EnableProject(cfg *Config, on bool, getenv func(string) string) ([]ProjectFile, error) {
	p := ProjectStateFile(getenv)
	if p == "" {
		return nil, errors.New("no state folder: HOME is not set")
	}
	if cfg.ProjectDir == "" || len(cfg.Project) == 0 {
		return nil, errors.New("no project file (latch.json, .mcp.json) in this folder")
	}
	st := projectState{Projects: readProjects(getenv)}
	if st.Projects == nil {
		st.Projects = map[string]map[string]string{}
	}
	key := projectKey(cfg.ProjectDir)
	files := st.Projects[key]
	if files == nil {
		files = map[string]string{}
	}
	for _, pf := range cfg.Project {
		if on {
			files[filepath.Base(pf.Path)] = pf.Hash
		} else {
			delete(files, filepath.Base(pf.Path))
		}
	}
	if len(files) == 0 {
		delete(st.Projects, key)
	} else {
		st.Projects[key] = files
	}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writePrivate(p, append(data, '\n')); err != nil {
		return nil, fmt.Errorf("cannot write %s: %v", p, errUnwrap(err))
	}
	return cfg.Project, nil
}

// writePrivate replaces the file at p by data, atomically, readable by
// its owner alone, making its folder (0700) when needed.
func writePrivate(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".projects-*.json")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename; else a leftover
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
