package cli

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// The pages of the binary that the start mapped are let go: the
// process's file-backed RSS falls, and the test goes on running on the
// pages it maps back.
func TestDropStartPagesLetsGoOfTheBinarysPages(t *testing.T) {
	before := rssFileKiB(t)
	dropStartPages()
	after := rssFileKiB(t)
	if after >= before {
		t.Fatalf("RssFile %d KiB before, %d KiB after: nothing was let go", before, after)
	}
}

func rssFileKiB(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status")
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatalf("RssFile: %q", v)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}
