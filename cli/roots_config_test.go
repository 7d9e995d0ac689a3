package cli

import (
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"latch/config"
)

// roots: ~ expanded, relative to the config file's folder, cleaned.
func TestLoadConfigRoots(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "proj"), 0o700); err != nil {
		t.Fatal(err)
	}
	path, dir := writeConfig(t, `{"roots": ["~/proj", ".", "sub/../"]}`)
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(path, envOf(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(home, "proj"), dir, dir}
	if !reflect.DeepEqual(cfg.Roots, want) {
		t.Errorf("roots: %v, want %v", cfg.Roots, want)
	}
}

func TestLoadConfigRootsErrors(t *testing.T) {
	for body, want := range map[string]string{
		`{"roots": ["missing"]}`:    "roots[0]: directory not found: ",
		`{"roots": ["latch.json"]}`: "roots[0]: not a directory: ",
		`{"roots": "."}`:            "roots: expected an array of strings",
		`{"roots": [".", 3]}`:       "roots[1]: ",
		`{"roots": [""]}`:           "roots[0]: empty directory",
		`{"roots": ["~/x"]}`:        "roots[0]: ~/x: ~ needs HOME",
	} {
		path, _ := writeConfig(t, body)
		_, err := config.Load(path, envOf(nil))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q in it", body, err, want)
		}
	}
}

// --root adds to the config's roots; without either the working directory
// is the root (nil); a missing directory or a file is refused.
func TestFlagRoots(t *testing.T) {
	f, err := parseFlags([]string{"--root", "a", "--root", "b"}, io.Discard)
	if err != nil || !reflect.DeepEqual([]string(f.roots), []string{"a", "b"}) {
		t.Fatalf("parse: %v %v", f.roots, err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := flagRoots([]string{"/cfg"}, []string{dir, dir + "/", "~"}, dir)
	if err != nil || !reflect.DeepEqual(got, []string{"/cfg", dir}) {
		t.Errorf("roots: %v %v", got, err)
	}
	if got, err := flagRoots(nil, nil, ""); got != nil || err != nil {
		t.Errorf("no roots: %v %v, want nil (the working directory)", got, err)
	}
	for want, d := range map[string]string{"directory not found": filepath.Join(dir, "nope"), "not a directory": file} {
		if _, err := flagRoots(nil, []string{d}, ""); err == nil || !strings.Contains(err.Error(), "--root "+d+": "+want) {
			t.Errorf("--root %s: %v, want %q", d, err, want)
		}
	}
}
