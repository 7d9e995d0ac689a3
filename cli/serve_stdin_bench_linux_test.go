package cli

// What latch serve --stdio costs a call by the kind of stdin it is
// given, against the build before the change, in one run:
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestServeStdinKinds -v ./cli/
//
// A pipe is what Go's os/exec gives a child (mcp-go's client), a socket
// pair what Node's child_process does. The figures are the ones load
// moves least: latch's CPU time and context switches a call, summed over
// its threads; calls/s too, as the median of the rounds' ratios. With
// LATCH_BENCH_STRACE=1 (strace on the PATH) a round more counts latch's
// system calls a call, by name, with strace -c -f attached for the calls
// only (strace slows latch down a lot, so that round is not timed).
// Measurements, not pass/fail thresholds.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"latch/mcp/mcptestutil"
)

func TestServeStdinKinds(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	const inFlight, calls, rounds = 32, 1000, 5
	fake := mcptestutil.BuildFakeMCP(t)
	r := newPromptRig(t, map[string]any{
		"serve":      map[string]any{"max_concurrent_per_client": inFlight},
		"mcpServers": map[string]any{"up": map[string]any{"command": fake, "allow": []string{"echo"}}}}, false)
	base := benchBase(t)
	if base == "" {
		return
	}
	env := slices.Clone(r.env)
	// The session log on tmpfs: the decision's fsync would drown the rest.
	if dir := tmpfsDir(t); dir != "" {
		env = append(env, "XDG_STATE_HOME="+dir)
	}
	for _, kind := range []string{"pipe", "socketpair"} {
		var this, before stdinCost
		var ratios []float64
		for range rounds {
			c := stdinRun(t, r.bin, env, r.cfg, kind, inFlight, calls, "")
			b := stdinRun(t, base, env, r.cfg, kind, inFlight, calls, "")
			this.add(c)
			before.add(b)
			ratios = append(ratios, b.wall.Seconds()/c.wall.Seconds())
		}
		slices.Sort(ratios)
		n := float64(calls * rounds)
		t.Logf("stdin a %s, %d calls of echo %d at a time, %d rounds: this build %.1f µs CPU, %.2f voluntary + %.2f involuntary context switches a call; "+
			"before %.1f µs, %.2f + %.2f: %.2f× the CPU, %.2f× the switches; calls/s this over before, the rounds' median %.2f× (%.2f× to %.2f×)",
			kind, calls, inFlight, rounds, this.cpuUS(n), float64(this.vol)/n, float64(this.invol)/n,
			before.cpuUS(n), float64(before.vol)/n, float64(before.invol)/n,
			this.cpuUS(n)/before.cpuUS(n), float64(this.vol+this.invol)/float64(before.vol+before.invol),
			ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
		if os.Getenv("LATCH_BENCH_STRACE") == "1" {
			dir := t.TempDir()
			this, before := filepath.Join(dir, "this"), filepath.Join(dir, "before")
			stdinRun(t, r.bin, env, r.cfg, kind, inFlight, calls, this)
			stdinRun(t, base, env, r.cfg, kind, inFlight, calls, before)
			t.Logf("stdin a %s, system calls a call (strace -c -f), this build ← before: %s", kind,
				syscallsPerCall(t, this, before, calls))
		}
	}
}

// syscallsPerCall reads two strace -c summaries and says, for each
// system call either made at least once in 20 calls, how many times each
// made it a call; the total first.
func syscallsPerCall(t *testing.T, this, before string, calls int) string {
	t.Helper()
	a, b := straceCounts(t, this), straceCounts(t, before)
	names := []string{"total"}
	for name, n := range a {
		if name != "total" && (n*20 >= calls || b[name]*20 >= calls) {
			names = append(names, name)
		}
	}
	for name, n := range b {
		if _, ok := a[name]; !ok && n*20 >= calls {
			names = append(names, name)
		}
	}
	slices.Sort(names[1:])
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = fmt.Sprintf("%s %.2f ← %.2f", name, float64(a[name])/float64(calls), float64(b[name])/float64(calls))
	}
	return strings.Join(parts, ", ")
}

// straceCounts are the calls column of an strace -c summary, by system
// call ("total" too).
func straceCounts(t *testing.T, path string) map[string]int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		var n int
		if len(f) < 5 || f[0] == "%" || strings.HasPrefix(f[0], "-") {
			continue
		}
		if _, err := fmt.Sscan(f[3], &n); err == nil {
			counts[f[len(f)-1]] = n
		}
	}
	return counts
}

// straceAttach attaches strace -c -f to pid, writing its summary to out
// when stopped; it returns once strace has attached.
func straceAttach(t *testing.T, pid int, out string) (stop func()) {
	t.Helper()
	cmd := exec.Command("strace", "-c", "-f", "-o", out, "-p", strconv.Itoa(pid))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("strace: %v", err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() && !strings.Contains(sc.Text(), "attached") {
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}
}

// stdinCost is what a run of calls cost latch: its CPU time (all its
// threads'), its context switches, and the run's wall-clock time.
type stdinCost struct {
	cpu, wall  time.Duration
	vol, invol int64
}

func (c *stdinCost) add(o stdinCost) {
	c.cpu += o.cpu
	c.wall += o.wall
	c.vol += o.vol
	c.invol += o.invol
}

func (c *stdinCost) cpuUS(calls float64) float64 { return float64(c.cpu.Nanoseconds()) / 1000 / calls }

func (c stdinCost) minus(o stdinCost) stdinCost {
	return stdinCost{cpu: c.cpu - o.cpu, vol: c.vol - o.vol, invol: c.invol - o.invol}
}

// threadCost sums the CPU time (schedstat, in ns) and context switches
// of pid's threads.
func threadCost(t *testing.T, pid int) stdinCost {
	t.Helper()
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	if err != nil || len(tasks) == 0 {
		t.Fatalf("no threads of %d: %v", pid, err)
	}
	var c stdinCost
	for _, task := range tasks {
		if b, err := os.ReadFile(filepath.Join(task, "schedstat")); err == nil {
			var ns int64
			_, _ = fmt.Sscan(string(b), &ns)
			c.cpu += time.Duration(ns)
		}
		b, err := os.ReadFile(filepath.Join(task, "status"))
		if err != nil {
			continue // a thread that ended
		}
		for line := range strings.Lines(string(b)) {
			var n int64
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				_, _ = fmt.Sscan(v, &n)
				c.vol += n
			} else if v, ok := strings.CutPrefix(line, "nonvoluntary_ctxt_switches:"); ok {
				_, _ = fmt.Sscan(v, &n)
				c.invol += n
			}
		}
	}
	return c
}

// stdinRun starts bin's latch serve --stdio with stdin a blocking pipe or
// socket pair (stdinChannel), makes calls calls of up__echo keeping
// inFlight under way, and returns what they cost latch; with strace set,
// strace -c counts latch's system calls during the calls into that file.
func stdinRun(t *testing.T, bin string, env []string, cfg, kind string, inFlight, calls int, strace string) stdinCost {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(5*time.Minute))
	defer cancel()
	stdin, client := stdinChannel(t, kind)
	or, ow, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = or.Close() }()
	cmd := exec.Command(bin, "--config", cfg, "serve", "--stdio", "--quiet")
	cmd.Env = env
	cmd.Stdin, cmd.Stdout = stdin, ow
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	_ = ow.Close()
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var wmu sync.Mutex
	send := func(s string) {
		wmu.Lock()
		defer wmu.Unlock()
		if _, err := unix.Write(client, []byte(s+"\n")); err != nil {
			t.Errorf("write to latch: %v", err)
		}
	}
	call := func(id int) {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"up__echo","arguments":{"message":"m%d"}}}`, id, id))
	}
	answers := make(chan int, inFlight)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(or)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
			}
			if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID != nil {
				if len(m.Result) == 0 || strings.Contains(string(m.Result), `"isError":true`) {
					t.Errorf("%s: call %d: %s", bin, *m.ID, sc.Bytes())
				}
				answers <- *m.ID
			}
		}
	}()
	await := func() {
		select {
		case _, ok := <-answers:
			if !ok {
				t.Fatalf("%s ended", bin)
			}
		case <-ctx.Done():
			t.Fatalf("%s: no answer", bin)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	await()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call(1) // warm
	await()
	stopTrace := func() {}
	if strace != "" {
		stopTrace = straceAttach(t, cmd.Process.Pid, strace)
	}
	c0, start := threadCost(t, cmd.Process.Pid), time.Now()
	next := 2
	for ; next < 2+inFlight; next++ {
		call(next)
	}
	for range calls {
		await()
		if next < 2+calls {
			call(next)
			next++
		}
	}
	wall := time.Since(start)
	stopTrace()
	c := threadCost(t, cmd.Process.Pid).minus(c0)
	c.wall = wall
	return c
}
