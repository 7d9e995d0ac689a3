package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestBrowserOpensOnlyWebLinks: only http(s) URLs are opened, each as one
// argument of $BROWSER or the platform's opener (never through a shell),
// and the screen's opener does not wait for the browser.
func TestBrowserOpensOnlyWebLinks(t *testing.T) {
	env := func(k string) string { return map[string]string{"BROWSER": "mybrowser"}[k] }
	for _, bad := range []string{"file:///etc/passwd", "javascript:alert(1)", "ssh://host", "x-latch:open", ""} {
		if argv, err := browserCommand(bad, env); err == nil {
			t.Errorf("%q: opened with %v", bad, argv)
		}
	}
	u := "https://example.com/a?b=1&c=$(rm -rf ~)"
	if argv, err := browserCommand(u, env); err != nil || !slices.Equal(argv, []string{"mybrowser", u}) {
		t.Errorf("argv %v, %v", argv, err)
	}
	if runtime.GOOS == "windows" {
		t.Skip("the recording browser is a shell script")
	}
	// A "browser" that records its argument and takes its time.
	dir := t.TempDir()
	got := filepath.Join(dir, "got")
	script := filepath.Join(dir, "browser.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 2\nprintf '%s' \"$1\" > "+got+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := startBrowser(u, func(k string) string { return map[string]string{"BROWSER": script}[k] }); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("startBrowser waited %s for the browser", d)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(got)
		if string(b) == u {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser got %q, want %q", b, u)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
