package mcptestutil_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// extConformanceScenarios are the server scenarios of the pre-release
// conformance suite (testdata/npm's conformance-next,
// @modelcontextprotocol/conformance 0.2.0-alpha.12) for the 2026-07-28
// tasks extension (io.modelcontextprotocol/tasks, SEP-2663).
var extConformanceScenarios = []string{
	"tasks-capability-negotiation",
	"tasks-dispatch-and-envelope",
	"tasks-lifecycle",
	"tasks-mrtr-composition",
	"tasks-mrtr-input",
	"tasks-request-headers",
	"tasks-request-state-removal",
	"tasks-required-task-error",
	"tasks-status-notifications",
	"tasks-wire-fields",
}

// TestExtTaskServerConformance runs the suite's tasks-extension server
// scenarios against ExtTaskServer over streamable HTTP: the only peer
// latch's client of the extension is tested against must speak the wire
// the suite checks. Every check must pass but those listed in
// testdata/conformance/server-expected-failures-tasks.yaml, and a listed
// one that passes fails the run (the suite's own baseline check): the
// list may only shrink.
func TestExtTaskServerConformance(t *testing.T) {
	mcptestutil.NPMPackage(t, "conformance-next")
	root := mcptestutil.ModuleRoot(t)
	npm := filepath.Join(root, "testdata", "npm")
	baseline := filepath.Join(root, "testdata", "conformance", "server-expected-failures-tasks.yaml")
	hook := filepath.Join(root, "testdata", "conformance", "node20-fs-globsync.mjs")
	env := append(os.Environ(), "NODE_OPTIONS="+strings.TrimSpace(os.Getenv("NODE_OPTIONS")+` --import "`+hook+`"`))

	ts := mcptestutil.NewExtTaskServer(time.Second, "")
	srv := httptest.NewServer(ts.Handler())
	t.Cleanup(srv.Close)
	for _, scenario := range extConformanceScenarios {
		t.Run(scenario, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", filepath.Join(npm, "node_modules", "conformance-next", "dist", "index.js"),
				"server", "--url", srv.URL+"/mcp", "--scenario", scenario, "-o", out, "--expected-failures", baseline)
			cmd.Dir, cmd.Env, cmd.WaitDelay = npm, env, 5*time.Second
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b
			err := cmd.Run()
			table, passed := extConformanceChecks(t, out)
			t.Logf("%s:\n%s", scenario, table)
			if err != nil {
				t.Errorf("scenario %s: %v; the suite's output:\n%s", scenario, err, b.String())
			}
			if passed == 0 && scenario != "tasks-status-notifications" {
				t.Errorf("scenario %s passed no check", scenario)
			}
		})
	}
}

// extConformanceChecks reads the checks the suite wrote under dir (its
// -o): one line per check, and how many passed.
func extConformanceChecks(t *testing.T, dir string) (table string, passed int) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	var b strings.Builder
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct{ ID, Status, ErrorMessage string }
		if err := json.Unmarshal(raw, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range checks {
			if c.Status == "SUCCESS" {
				passed++
			}
			fmt.Fprintf(&b, "  %-8s %s %s\n", c.Status, c.ID, c.ErrorMessage)
		}
	}
	return b.String(), passed
}
