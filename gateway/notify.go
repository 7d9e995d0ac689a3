package gateway

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"latch/procgroup"
	"latch/session"
	"latch/ui/sanitize"
)

// serve.notify_command runs once per parked call, so that a person can
// wire notify-send, ntfy or a chat webhook. It never delays the call: it
// starts after the call parked, in the background, at most notifyMax at
// once (one more is skipped, and logged), each killed after
// notifyTimeout. Its environment is a minimal base (the variables below)
// and the call's LATCH_* names: never the call's arguments, nor any
// variable latch holds a token in. Its output is discarded but for a
// bounded tail of a failing run, which is logged.

const (
	// notifyMax bounds the commands running at once.
	notifyMax = 4
	// notifyTimeout bounds one run.
	notifyTimeout = 10 * time.Second
	// notifyTail is how much of a failing run's output is logged.
	notifyTail = 256
	// notifyValueMax bounds each LATCH_* value, in bytes.
	notifyValueMax = 256
)

// notifyBase are the variables passed on from latch's environment: what a
// desktop notifier or an HTTP client needs to run, nothing more.
var notifyBase = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TZ", "TMPDIR", "SYSTEMROOT",
	"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"}

// notifier runs serve.notify_command.
type notifier struct {
	argv    []string
	slots   chan struct{}
	timeout time.Duration
	running sync.WaitGroup
}

// newNotifier is the notifier of argv; nil when there is none.
func newNotifier(argv []string) *notifier {
	if len(argv) == 0 {
		return nil
	}
	return &notifier{argv: argv, slots: make(chan struct{}, notifyMax), timeout: notifyTimeout}
}

// parked starts the command for a call that parked, unless notifyMax
// runs already; it returns at once.
func (g *Gateway) parked(out session.GatewayOutcome, client, tool string) {
	n := g.notify
	if n == nil {
		return
	}
	select {
	case n.slots <- struct{}{}:
	default:
		g.logNotify(out.ID, fmt.Sprintf("not run: %d already running", notifyMax), "skipped")
		return
	}
	n.running.Add(1)
	go func() {
		defer n.running.Done()
		defer func() { <-n.slots }()
		start := time.Now()
		err := n.run(out, client, tool)
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			g.logNotify(out.ID, fmt.Sprintf("failed after %s: %v", took, err), "failed")
			return
		}
		g.logNotify(out.ID, "ran in "+took.String(), "ok")
	}()
}

// run runs the command once for the call, within the timeout.
func (n *notifier) run(out session.GatewayOutcome, client, tool string) error {
	ctx, cancel := context.WithTimeout(context.Background(), n.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, n.argv[0], n.argv[1:]...)
	cmd.Env = notifyEnv(os.Getenv, out, client, tool)
	cmd.Stdin = nil
	tail := &tailBuffer{max: notifyTail}
	cmd.Stdout, cmd.Stderr = tail, tail
	cmd.WaitDelay = time.Second // a child that keeps the output open is not waited for
	procgroup.KillOnCancel(cmd)
	err := cmd.Run()
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("killed after %s", n.timeout)
	case err != nil && tail.Len() > 0:
		return fmt.Errorf("%v: %s", err, strings.TrimSpace(tail.String()))
	}
	return err
}

// notifyEnv is the command's environment: the base variables latch has,
// and the call's id, client, tool and expiry, each made one inert line.
func notifyEnv(getenv func(string) string, out session.GatewayOutcome, client, tool string) []string {
	var env []string
	for _, k := range notifyBase {
		if v := getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	for _, kv := range [][2]string{{"LATCH_INVOCATION_ID", out.ID}, {"LATCH_CLIENT", client}, {"LATCH_TOOL", tool},
		{"LATCH_EXPIRES_AT", out.Expires.UTC().Format(time.RFC3339)}} {
		v := sanitize.Line(kv[1])
		if len(v) > notifyValueMax {
			v = strings.ToValidUTF8(v[:notifyValueMax], "")
		}
		env = append(env, kv[0]+"="+v)
	}
	return env
}

// logNotify logs what became of one run.
func (g *Gateway) logNotify(id, what, outcome string) {
	g.logMu.Lock()
	defer g.logMu.Unlock()
	LogEvent(g.o.Log, g.o.JSON, "notify", "notify_command for "+id+": "+what,
		map[string]any{"invocation_id": id, "outcome": outcome, "detail": what})
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	t.b.Write(p)
	if extra := t.b.Len() - t.max; extra > 0 {
		t.b.Next(extra)
	}
	return n, nil
}

// Len is how many bytes it holds.
func (t *tailBuffer) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.Len()
}

// String is what it holds.
func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}
