package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// The measurements of make bench compare this build with the one before
// the change, in the same run, so that they read as ratios on the same
// machine at the same moment. The previous build is $LATCH_BENCH_BASE_BIN
// when set, else latch built from the git revision $BENCH_BASE: by
// default the commit this branch left main at, or HEAD~1 on main.
// BENCH_BASE=none measures this build alone.

var base struct {
	once     sync.Once
	bin, rev string
	why      string // why there is none
}

// baseBinary returns the previous build and its revision, built once per
// test run; "" when there is none, said in t's log.
func baseBinary(t *testing.T) (bin, rev string) {
	t.Helper()
	base.once.Do(func() { base.bin, base.rev, base.why = buildBase(mcptestutil.ModuleRoot(t)) })
	if base.bin == "" {
		t.Logf("NOT COMPARED with the build before the change: %s", base.why)
	} else {
		t.Logf("the build before the change: %s", base.rev)
	}
	return base.bin, base.rev
}

// buildBase builds latch at BENCH_BASE (see above) out of the tree, or
// says why it did not.
func buildBase(root string) (bin, rev, why string) {
	if b := os.Getenv("LATCH_BENCH_BASE_BIN"); b != "" {
		return b, b, ""
	}
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		return strings.TrimSpace(string(out)), err
	}
	rev = os.Getenv("BENCH_BASE")
	if rev == "none" {
		return "", "", "BENCH_BASE=none"
	}
	if rev == "" {
		head, err := git("rev-parse", "HEAD")
		if err != nil {
			return "", "", "no git history to build it from"
		}
		if rev, err = git("merge-base", "HEAD", "main"); err != nil || rev == head {
			rev = "HEAD~1"
		}
	}
	short, err := git("rev-parse", "--short", rev)
	if err != nil {
		return "", "", "no revision " + rev + " in git"
	}
	dir, err := os.MkdirTemp("", "latch-base-")
	if err != nil {
		return "", "", err.Error()
	}
	src := filepath.Join(dir, "src")
	if err := os.Mkdir(src, 0o700); err != nil {
		return "", "", err.Error()
	}
	archive := exec.Command("sh", "-c", `git -C "$1" archive "$2" | tar -x -C "$3"`, "sh", root, short, src)
	if out, err := archive.CombinedOutput(); err != nil {
		return "", "", "git archive " + short + ": " + err.Error() + ": " + string(out)
	}
	bin = filepath.Join(dir, "latch-base")
	build := exec.Command("go", "build", "-tags", "latchtest", "-o", bin, ".")
	build.Dir = src
	start := time.Now()
	if out, err := build.CombinedOutput(); err != nil {
		return "", "", "go build at " + short + ": " + err.Error() + ": " + string(out)
	}
	_ = os.RemoveAll(src)
	return bin, short + " (built in " + time.Since(start).Round(time.Millisecond).String() + ")", ""
}
