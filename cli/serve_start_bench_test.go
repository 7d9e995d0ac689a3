package cli

// TestServeStartLongLog (make bench): what a latch serve start costs
// when the run it takes up has a long log, by this build and by the one
// before (BENCH_BASE), interleaved:
//
//	LATCH_SERVE_BENCH=1 go test -count=1 -run TestServeStartLongLog -v ./cli/

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A start of latch serve --stdio that takes up a run of N calls (one in
// a thousand parked, half of those still waiting) and stops at once
// (stdin at its end): its CPU and wall time, the first start on the log
// (no park mark yet) and the median of the next four, for N of 10,000 and
// 100,000. The start reads which calls wait (to choose the run) and takes
// them up; with the park mark, kept as the run before stopped, it reads
// only their lines, whatever N.
func TestServeStartLongLog(t *testing.T) {
	if os.Getenv("LATCH_SERVE_BENCH") != "1" {
		t.Skip("a measurement; set LATCH_SERVE_BENCH=1 to run it")
	}
	builds := map[string]string{"this": latchBinary(t, false)}
	if bin, _ := baseBinary(t); bin != "" {
		builds["before"] = bin
	}
	names := []string{"this", "before"}
	for _, n := range []int{10_000, 100_000} {
		rigs := map[string]*promptRig{}
		ids := map[string]string{}
		for name := range builds {
			rigs[name] = newPromptRig(t, nil, false)
			_, _, ids[name] = startServeTimed(t, rigs[name], builds[name]) // the run, with its log
			appendCalls(t, filepath.Join(rigs[name].state, ids[name]+".jsonl"), ids[name], n)
		}
		cpu, wall := map[string][]float64{}, map[string][]float64{}
		for range 5 {
			for _, name := range names {
				if builds[name] == "" {
					continue
				}
				c, w, id := startServeTimed(t, rigs[name], builds[name])
				if id != ids[name] {
					t.Fatalf("%s took up session %s, not %s", name, id, ids[name])
				}
				cpu[name], wall[name] = append(cpu[name], c.Seconds()*1000), append(wall[name], w.Seconds()*1000)
			}
		}
		fi, _ := os.Stat(filepath.Join(rigs["this"].state, ids["this"]+".jsonl"))
		for _, name := range names {
			if len(cpu[name]) == 0 {
				continue
			}
			t.Logf("%d calls (log %.0f MB), %s: first start CPU %.0f ms, wall %.0f ms; later starts CPU %.1f ms, wall %.1f ms (medians of %d)",
				n, float64(fi.Size())/1e6, name, cpu[name][0], wall[name][0], median(cpu[name][1:]), median(wall[name][1:]), len(cpu[name])-1)
		}
		if len(cpu["before"]) > 0 {
			t.Logf("%d calls: a later start's CPU %.3f× the build before's, wall %.3f×", n,
				median(cpu["this"][1:])/median(cpu["before"][1:]), median(wall["this"][1:])/median(wall["before"][1:]))
		}
	}
}

// startServeTimed is one start of bin's latch serve --stdio that stops
// at once: its CPU and wall time, and the session it served.
func startServeTimed(t *testing.T, r *promptRig, bin string) (cpu, wall time.Duration, id string) {
	t.Helper()
	cmd := exec.Command(bin, "--config", r.cfg, "serve", "--stdio")
	cmd.Env, cmd.Dir = r.env, r.cwd
	var errb bytes.Buffer
	cmd.Stderr = &errb
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("latch serve --stdio: %v\n%s", err, errb.String())
	}
	wall = time.Since(start)
	sc := bufio.NewScanner(&errb)
	for sc.Scan() {
		if _, s, ok := strings.Cut(sc.Text(), "serving on stdin and stdout, session "); ok {
			id = s
		}
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(), wall, id
}

// appendCalls writes n calls of a gateway to the log at path, as the
// gateway logs them: one in a thousand parked, every other parked one
// rejected, the others allowed and answered with a result of a few
// hundred bytes.
func appendCalls(t *testing.T, path, id string, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	at := time.Now().UTC().Add(-time.Hour)
	ev := func(typ, rest string) {
		at = at.Add(time.Microsecond)
		fmt.Fprintf(w, `{"type":%q,"time":%q,"session_id":%q,"turn":0,%s}`+"\n", typ, at.Format(time.RFC3339Nano), id, rest)
	}
	result := `{\"entities\":[{\"name\":\"e0\",\"entityType\":\"thing\",\"observations\":[\"o1\",\"o2\"]},{\"name\":\"e1\",\"entityType\":\"thing\",\"observations\":[\"o1\",\"o2\"]}],\"relations\":[]}`
	for i := range n {
		call := fmt.Sprintf("gw_%012x", i)
		if i%1000 == 0 {
			a := fmt.Sprintf("bench%d", i)
			args := fmt.Sprintf(`{"text":"call %d"}`, i)
			ev("tool_call", fmt.Sprintf(`"call_id":%q,"server":"mem","tool":"mem__create_entities","arguments":%s,"client":"ci"`, call, args))
			ev("permission", fmt.Sprintf(`"call_id":%q,"tool":"mem__create_entities","decision":"parked","by":"policy","reason":"waiting","mode":"approve"`, call))
			ev("approval_parked", fmt.Sprintf(`"approval_id":%q,"call_id":%q,"server":"mem","tool":"mem__create_entities","arguments":%s,"digest":"d","description":"Create.","client":"ci","expires":%q`,
				a, call, args, at.Add(24*time.Hour).Format(time.RFC3339Nano)))
			if i%2000 == 0 {
				ev("approval_resolved", fmt.Sprintf(`"approval_id":%q,"call_id":%q,"decision":"rejected","by":"alice"`, a, call))
			}
			continue
		}
		ev("tool_call", fmt.Sprintf(`"call_id":%q,"server":"mem","tool":"mem__read_graph","arguments":{},"client":"ci"`, call))
		ev("permission", fmt.Sprintf(`"call_id":%q,"tool":"mem__read_graph","decision":"allowed","by":"policy","reason":"allow-listed","mode":"read_only"`, call))
		ev("tool_result", fmt.Sprintf(`"call_id":%q,"tool":"mem__read_graph","ok":true,"content":"%s","parts":[{"text":"%s","type":"text"}]`, call, result, result))
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
