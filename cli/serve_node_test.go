package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// nodeClient is one run of a client script under testdata/npm (the
// official SDK clients): started with its plan as JSON, in the rig's
// environment.
type nodeClient struct {
	name      string
	cmd       *exec.Cmd
	cancel    context.CancelFunc
	out, errb bytes.Buffer
}

// startNodeClient starts testdata/npm/SCRIPT (needing npm package pkg)
// with plan; wait on it with finish.
func startNodeClient(t *testing.T, r *promptRig, pkg, script string, plan map[string]any) *nodeClient {
	t.Helper()
	mcptestutil.NPMPackage(t, pkg)
	raw, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	c := &nodeClient{name: filepath.Base(script), cancel: cancel}
	c.cmd = exec.CommandContext(ctx, "node", filepath.Join(mcptestutil.ModuleRoot(t), "testdata", "npm", script), string(raw))
	c.cmd.Env, c.cmd.Dir = r.env, r.cwd
	c.cmd.WaitDelay = 5 * time.Second
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.errb
	if err := c.cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = c.cmd.Wait() })
	return c
}

// finish waits for the script, fails the test if it failed, and parses
// the JSON it printed into res; it returns its stderr (latch's log, when
// the client started latch serve over stdio).
func (c *nodeClient) finish(t *testing.T, res any) string {
	t.Helper()
	err := c.cmd.Wait()
	c.cancel()
	t.Logf("%s stderr:\n%s", c.name, c.errb.String())
	if err != nil {
		t.Fatalf("%s: %v\nstdout: %s", c.name, err, c.out.String())
	}
	if err := json.Unmarshal(c.out.Bytes(), res); err != nil {
		t.Fatalf("%s printed no JSON: %v\n%s", c.name, err, c.out.String())
	}
	return c.errb.String()
}
