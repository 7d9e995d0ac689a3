//go:build unix

package themes

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestThemeFileNotRegular: a FIFO (or a device) named like a theme file is
// refused, never opened for reading: opening a FIFO waits for a writer.
func TestThemeFileNotRegular(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := Dir(home)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.json")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fifo", "zero"} {
		done := make(chan error, 1)
		go func() {
			_, _, err := FromEnv(name, true, env(nil), home)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "not a regular file") {
				t.Errorf("%s: err = %v; want not a regular file", name, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("loading the %s theme hangs", name)
		}
	}
}
