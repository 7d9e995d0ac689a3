package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// authConformanceScenarios are the suite's 22 auth/* client scenarios.
var authConformanceScenarios = []string{
	"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
	"auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
	"auth/pre-registration", "auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch", "auth/offline-access-scope",
	"auth/offline-access-not-supported", "auth/client-credentials-jwt", "auth/client-credentials-basic",
	"auth/cross-app-access-complete-flow",
}

// TestConformanceAuth runs the auth scenarios against the Manager through
// testdata/conformance. A scenario must pass unless it is listed in
// testdata/conformance/expected-failures.yaml, and one listed must fail:
// the list only shrinks.
func TestConformanceAuth(t *testing.T) {
	cli := mcptestutil.NPMBin(t, "conformance")
	root := mcptestutil.ModuleRoot(t)
	bin := buildConformanceClient(t, root)
	expected := expectedFailures(t, filepath.Join(root, "testdata", "conformance", "expected-failures.yaml"))
	hook := filepath.Join(root, "testdata", "conformance", "node20-fs-globsync.mjs")
	env := append(os.Environ(), "NODE_OPTIONS="+strings.TrimSpace(os.Getenv("NODE_OPTIONS")+` --import "`+hook+`"`))
	for _, scenario := range authConformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, cli, "client", "--command", bin, "--scenario", scenario)
			cmd.Env = env
			cmd.WaitDelay = 5 * time.Second
			raw, err := cmd.CombinedOutput()
			out := ansiEscape.ReplaceAllString(string(raw), "")
			passed, total, problem := conformanceVerdict(out)
			if ctx.Err() != nil {
				problem = "no result within 60 s"
			} else if err != nil && problem == "" {
				problem = "the CLI failed: " + err.Error()
			}
			switch listed := slices.Contains(expected, scenario); {
			case listed && problem == "":
				t.Fatalf("%s passes (%d/%d checks) but is listed in expected-failures.yaml: remove it", scenario, passed, total)
			case listed:
				t.Logf("expected failure: %s", problem)
			case problem != "":
				t.Fatalf("conformance %s: %s; full output:\n%s", scenario, problem, out)
			default:
				t.Logf("passed %d/%d checks", passed, total)
			}
		})
	}
}

// expectedFailures reads the client scenarios listed in the file.
func expectedFailures(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok {
			out = append(out, strings.TrimSpace(s))
		}
	}
	return out
}
