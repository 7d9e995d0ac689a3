package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// conformanceScenarios are the client scenarios of the official MCP
// conformance suite (npm @modelcontextprotocol/conformance 0.1.16) that are
// not about OAuth: all four must pass. The 22 auth/* scenarios are run by
// TestConformanceAuth (conformance_auth_test.go).
var conformanceScenarios = []string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"}

var (
	ansiEscape   = regexp.MustCompile(`\x1b\[[0-9;]*m`)
	passedCounts = regexp.MustCompile(`(?m)^Passed: (\d+)/(\d+),`)
)

// TestConformance runs the conformance suite's client scenarios against the
// Manager, through the program in testdata/conformance. Each must print
// OVERALL: PASSED with every one of at least one check passed.
func TestConformance(t *testing.T) {
	cli := mcptestutil.NPMBin(t, "conformance")
	root := mcptestutil.ModuleRoot(t)
	bin := buildConformanceClient(t, root)
	// The CLI imports fs.globSync, which Node 20 lacks; the hook stubs it
	// (and does nothing on Node 22 and later).
	hook := filepath.Join(root, "testdata", "conformance", "node20-fs-globsync.mjs")
	nodeOptions := strings.TrimSpace(os.Getenv("NODE_OPTIONS") + ` --import "` + hook + `"`)
	env := append(os.Environ(), "NODE_OPTIONS="+nodeOptions)

	for _, scenario := range conformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			start := time.Now()
			cmd := exec.CommandContext(ctx, cli, "client", "--command", bin, "--scenario", scenario)
			cmd.Env = env
			cmd.WaitDelay = 5 * time.Second
			raw, err := cmd.CombinedOutput()
			out := ansiEscape.ReplaceAllString(string(raw), "")
			passed, total, problem := conformanceVerdict(out)
			switch {
			case ctx.Err() != nil:
				problem = "no result within 60 s"
			case err != nil && problem == "":
				problem = "the CLI failed: " + err.Error()
			}
			if problem != "" {
				t.Fatalf("conformance %s: %s; full output:\n%s", scenario, problem, out)
			}
			t.Logf("passed %d/%d checks in %v", passed, total, time.Since(start).Round(time.Millisecond))
		})
	}
}

// conformanceVerdict reads the CLI's output: the checks passed and run, and
// what is wrong, if anything. A pass needs OVERALL: PASSED and all of at
// least one check passed (a scenario that ran none prints 0/0 PASSED).
func conformanceVerdict(out string) (passed, total int, problem string) {
	m := passedCounts.FindAllStringSubmatch(out, -1)
	if len(m) != 1 {
		return 0, 0, fmt.Sprintf("want one Passed: x/y line, found %d", len(m))
	}
	passed, _ = strconv.Atoi(m[0][1])
	total, _ = strconv.Atoi(m[0][2])
	switch {
	case !strings.Contains(out, "OVERALL: PASSED"):
		problem = "no OVERALL: PASSED"
	case total == 0 || passed != total:
		problem = fmt.Sprintf("passed %d/%d checks, want all of at least one", passed, total)
	}
	return passed, total, problem
}

// buildConformanceClient builds testdata/conformance into a temporary
// directory and returns the executable's path.
func buildConformanceClient(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "conformance")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// The CLI splits --command on spaces and runs it through a shell.
	if strings.ContainsAny(bin, " \t'\"$`;&|<>()*?") {
		t.Fatalf("the temp dir path %q would be mangled by the conformance CLI's shell; set TMPDIR to a plain path", bin)
	}
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/conformance")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build testdata/conformance: %v\n%s", err, out)
	}
	return bin
}

// TestConformanceVerdict checks the reading of the CLI's output: a pass, a
// 0/0 pass, a client that exited with an error, a failed check, no result.
func TestConformanceVerdict(t *testing.T) {
	for _, c := range []struct {
		out  string
		pass bool
	}{
		{"Test Results:\nPassed: 3/3, 0 failed, 0 warnings\n\n✅ OVERALL: PASSED\n", true},
		{"Test Results:\nPassed: 0/0, 0 failed, 0 warnings\n\n✅ OVERALL: PASSED\n", false},
		{"Test Results:\nPassed: 1/1, 0 failed, 0 warnings\n\n⚠️  CLIENT EXITED WITH ERROR (code 1)\n\n❌ OVERALL: FAILED\n", false},
		{"Test Results:\nPassed: 0/1, 1 failed, 0 warnings\n\n❌ OVERALL: FAILED\n", false},
		{"Starting scenario: x\n", false},
	} {
		if _, _, problem := conformanceVerdict(c.out); (problem == "") != c.pass {
			t.Errorf("verdict %q on:\n%s", problem, c.out)
		}
	}
}
