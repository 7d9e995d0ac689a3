//go:build !windows

package gateway_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// notifyRig is a gateway in approve mode whose serve.notify_command is
// argv, logging into log, served over HTTP.
func notifyRig(t *testing.T, argv []string, log *mcptestutil.SyncBuffer) (*rig, *holdServer) {
	t.Helper()
	up := newHoldServer()
	t.Cleanup(up.release)
	r := startRig(t, gateway.Options{Log: log, NotifyCommand: argv, AwaitPoll: 200 * time.Millisecond}, true,
		session.Options{LogDir: t.TempDir(), Policy: permissions.Policy{Mode: permissions.Approve}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	return r, up
}

// TestNotifyCommandOncePerParkedCall: serve.notify_command runs once for
// each parked call, with its id, client, tool and expiry in LATCH_*
// variables, and none of the call's arguments nor any token latch holds
// in its environment; each run is logged. A poll of the call runs nothing
// more.
func TestNotifyCommandOncePerParkedCall(t *testing.T) {
	t.Setenv("LATCH_TOKEN", "tok-secret-1")
	t.Setenv("GITHUB_TOKEN", "ghp-secret-2")
	out := t.TempDir()
	var log mcptestutil.SyncBuffer
	r, _ := notifyRig(t, []string{"sh", "-c", `env > "$0/$LATCH_INVOCATION_ID.env"`, out}, &log)
	c := r.connectAt(t, "2025-11-25", "ci-job", nil)
	var ids []string
	for _, text := range []string{"arg-secret-3", "arg-secret-4"} {
		res, err := call(t, c, "up__echo", map[string]any{"text": text})
		if err != nil || invocationID(res) == "" {
			t.Fatalf("the call did not park: %v %v", err, res)
		}
		ids = append(ids, invocationID(res))
	}
	if _, err := call(t, c, "latch_await_decision", map[string]any{"invocation_id": ids[0]}); err != nil {
		t.Fatal(err)
	}
	mcptestutil.WaitFor(t, 30*time.Second, "both runs logged", func() bool {
		return strings.Count(log.String(), "notify_command for gw_") == 2 && strings.Count(log.String(), ": ran in ") == 2
	})
	files, _ := filepath.Glob(filepath.Join(out, "*.env"))
	if len(files) != 2 {
		t.Fatalf("%d runs for 2 parked calls: %v", len(files), files)
	}
	for _, id := range ids {
		b, err := os.ReadFile(filepath.Join(out, id+".env"))
		if err != nil {
			t.Fatal(err)
		}
		env := string(b)
		for _, want := range []string{"LATCH_INVOCATION_ID=" + id + "\n", "LATCH_CLIENT=ci-job\n", "LATCH_TOOL=up__echo\n", "LATCH_EXPIRES_AT=20"} {
			if !strings.Contains(env, want) {
				t.Errorf("the environment lacks %q:\n%s", want, env)
			}
		}
		for _, secret := range []string{"tok-secret-1", "ghp-secret-2", "arg-secret-3", "arg-secret-4", token} {
			if strings.Contains(env, secret) {
				t.Errorf("the environment holds %q:\n%s", secret, env)
			}
		}
	}
}

// TestNotifyCommandNeverDelaysTheCall: a command that hangs does not hold
// up the park nor the decision (the client gets its result while the
// command still runs); it is killed at its timeout, and that is logged.
// Past the number that may run at once, a call's command is skipped,
// saying so, and the call parks all the same.
func TestNotifyCommandNeverDelaysTheCall(t *testing.T) {
	marks := t.TempDir()
	var log mcptestutil.SyncBuffer
	r, _ := notifyRig(t, []string{"sh", "-c", `touch "$0/$LATCH_INVOCATION_ID"; exec sleep 120`, marks}, &log)
	c := r.connectAt(t, "2025-11-25", "ci-job", nil)
	res, err := call(t, c, "up__echo", map[string]any{"text": "hi"})
	id := invocationID(res)
	if err != nil || id == "" {
		t.Fatalf("the call did not park: %v %v", err, res)
	}
	mcptestutil.WaitFor(t, 30*time.Second, "the command started", func() bool {
		_, err := os.Stat(filepath.Join(marks, id))
		return err == nil
	})
	if err := r.sess.GatewayDecide(id, true, "tester", ""); err != nil {
		t.Fatal(err)
	}
	res, err = call(t, c, "latch_await_decision", map[string]any{"invocation_id": id})
	if err != nil || res.IsError || text(res) != "echo hi" {
		t.Fatalf("the approved call's result: %v %v", err, res)
	}
	if strings.Contains(log.String(), "notify_command for "+id+": ") {
		t.Fatalf("the command ended before the result came (it sleeps 120 s):\n%s", log.String())
	}
	// More calls park while it runs: at most 4 commands at once, the rest
	// skipped and logged.
	for range 5 {
		if res, err := call(t, c, "up__echo", map[string]any{"text": "more"}); err != nil || invocationID(res) == "" {
			t.Fatalf("a call did not park while the commands hang: %v %v", err, res)
		}
	}
	mcptestutil.WaitFor(t, 30*time.Second, "the calls past 4 skipped", func() bool {
		return strings.Count(log.String(), "not run: 4 already running") == 2
	})
}

// TestNotifyCommandKilledAndFailingLogged: a run past its timeout is
// killed; a failing run is logged with the end of what it wrote.
func TestNotifyCommandKilledAndFailingLogged(t *testing.T) {
	var log mcptestutil.SyncBuffer
	pids := t.TempDir()
	r, _ := notifyRig(t, []string{"sh", "-c", `if [ "$LATCH_CLIENT" = slow ]; then sleep 120 & echo $! > "$0/child"; wait; fi; ` +
		`echo "boom $LATCH_CLIENT" >&2; exit 3`, pids}, &log)
	gateway.SetNotifyTimeout(r.g, 300*time.Millisecond)
	for _, name := range []string{"slow", "bad"} {
		c := r.connectAt(t, "2025-11-25", name, nil)
		if res, err := call(t, c, "up__echo", map[string]any{"text": "x"}); err != nil || invocationID(res) == "" {
			t.Fatalf("the call did not park: %v %v", err, res)
		}
	}
	mcptestutil.WaitFor(t, 30*time.Second, "both runs logged", func() bool {
		l := log.String()
		return strings.Contains(l, "killed after 300ms") && strings.Contains(l, "exit status 3: boom bad")
	})
	// The child the slow run left behind was killed with it.
	b, err := os.ReadFile(filepath.Join(pids, "child"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	mcptestutil.WaitFor(t, 30*time.Second, "the slow run's child gone", func() bool {
		return syscall.Kill(pid, 0) != nil
	})
}
