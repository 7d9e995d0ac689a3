package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/session/ollamatest"
)

// TestThreeTurnsPeakRSS measures the peak RSS of the built latch over a
// chat of three turns, each the workload's 3,000-token reply, against the
// base build (benchbase_test.go), twice each, interleaved. A measurement,
// not a timing test: it prints the peak (VmHWM) after each turn and fails
// only if a reply never ends. The context is set to 32k so that no turn
// compacts. Run it with:
//
//	LATCH_WORKLOAD=1 go test -count=1 -run TestThreeTurnsPeakRSS -v .
func TestThreeTurnsPeakRSS(t *testing.T) {
	if os.Getenv("LATCH_WORKLOAD") != "1" {
		t.Skip("a measurement; set LATCH_WORKLOAD=1 to run it")
	}
	bins := []string{latchBinary(t, false)}
	names := []string{"this"}
	if base, name := baseBinary(t); base != "" {
		bins, names = []string{base, bins[0]}, []string{"base " + name, "this"}
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(cfg, []byte(`{"ollama": {"options": {"num_ctx": 32768}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	var report strings.Builder
	fmt.Fprintf(&report, "peak RSS (VmHWM) after each of three turns of the workload's reply\n\n")
	for round := 1; round <= 2; round++ {
		for i, bin := range bins {
			peaks := threeTurns(t, bin, cfg)
			fmt.Fprintf(&report, "%-40s run %d: %s MB\n", names[i], round, strings.Join(peaks, " / "))
		}
	}
	t.Log("\n" + report.String())
	fmt.Print(report.String())
}

// threeTurns runs latch (bin) through three turns of the workload's
// reply and returns the peak RSS after each, in MB.
func threeTurns(t *testing.T, bin, cfg string) []string {
	t.Helper()
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion"}})
	defer fake.Close()
	text := workloadText()
	turn := ollamatest.Turn{Chunks: ollamatest.Tokens(text), Delay: time.Millisecond}
	fake.Script(turn, turn, turn)
	app := latchApp(bin)
	tm := startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: fake.Host(), Args: []string{"--model", e2eModel}, Env: []string{"LATCH_CONFIG=" + cfg}})
	defer app.quit(t, tm)
	tm.waitScreen(t, 10*time.Second, "latch's first screen", app.ready)
	var peaks []string
	for i := 1; i <= 3; i++ {
		prompt := fmt.Sprintf("Write long markdown document %d.", i)
		tm.typeKeys(prompt)
		tm.waitScreen(t, 5*time.Second, "the prompt in latch's input", func(s string) bool { return app.typed(s, prompt) })
		tm.sendKey(keyEnter)
		fake.WaitRequests(i, 10*time.Second)
		// The status line drops the last turn's tok/s while a reply
		// streams, and shows this one's at its end.
		tm.waitScreen(t, 10*time.Second, fmt.Sprintf("turn %d streaming", i), func(s string) bool {
			return !strings.Contains(statusLine(s), "tok/s")
		})
		tm.waitScreen(t, 60*time.Second, fmt.Sprintf("turn %d's tok/s", i), func(s string) bool {
			return strings.Contains(statusLine(s), "tok/s")
		})
		peaks = append(peaks, fmt.Sprintf("%.1f", float64(peakRSS(t, tm.Pid))*1024/1e6))
	}
	return peaks
}
