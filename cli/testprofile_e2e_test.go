package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestProfilesOfALatchtestBuild: the binary the tests build writes its
// profiles and memory figures into $LATCH_TEST_PROFILE_DIR
// (testprofile.go), the way docs/ARCHITECTURE.md ("Start-up and memory")
// says to find where start-up time and memory go.
func TestProfilesOfALatchtestBuild(t *testing.T) {
	bin := latchBinary(t, false)
	dir := t.TempDir()
	cmd := exec.Command(bin, "--version")
	cmd.Env = cleanEnv(t, "127.0.0.1:1", []string{"LATCH_TEST_PROFILE_DIR=" + dir})
	// (stdout only: the runtime says on stderr that it took the CPU
	// profile rate of 1 kHz before the profile started)
	if out, err := cmd.Output(); err != nil || !strings.HasPrefix(string(out), "latch ") {
		t.Fatalf("latch --version: %v\n%s", err, out)
	}
	dir = filepath.Join(dir, strconv.Itoa(cmd.Process.Pid)) // a folder for each process
	for _, name := range []string{"cpu.pprof", "heap-exit.pprof", "block.pprof", "mutex.pprof"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v (want a profile)", name, err)
		}
	}
	m, err := os.ReadFile(filepath.Join(dir, "metrics.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"at exit:", "/memory/classes/heap/objects:bytes", "/gc/heap/goal:bytes"}
	if runtime.GOOS == "linux" {
		want = append(want, "VmHWM:", "RssFile:")
	}
	for _, w := range want {
		if !strings.Contains(string(m), w) {
			t.Errorf("metrics.txt has no %q:\n%s", w, m)
		}
	}
}
