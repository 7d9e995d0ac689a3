package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
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
	// A "browser" that records its argument only once the test says go:
	// startBrowser returning before that is it not waiting for the
	// browser (a measure of how soon would fail on a busy machine).
	dir := t.TempDir()
	got := filepath.Join(dir, "got")
	goFile := filepath.Join(dir, "go")
	script := filepath.Join(dir, "browser.sh")
	body := "#!/bin/sh\nwhile [ ! -e " + goFile + " ]; do sleep 0.05; done\nprintf '%s' \"$1\" > " + got + "\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	started := make(chan error, 1)
	go func() {
		started <- startBrowser(u, func(k string) string { return map[string]string{"BROWSER": script}[k] })
	}()
	select {
	case err := <-started:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(mcptestutil.HangBound(0)):
		_ = os.WriteFile(goFile, nil, 0o600) // let the browser end
		t.Fatalf("startBrowser still waiting for the browser after %s", mcptestutil.HangBound(0))
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var b []byte
	if !mcptestutil.Eventually(mcptestutil.HangBound(0), func() bool { b, _ = os.ReadFile(got); return string(b) == u }) {
		t.Fatalf("the browser got %q, want %q", b, u)
	}
}
