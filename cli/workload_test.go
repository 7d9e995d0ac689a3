package cli

// TestStreamWorkload measures the built latch binary on a real streaming
// workload: a 3,000-token markdown reply streamed at ~1,000 tokens/s into a
// 120×40 pseudo-terminal. It is a measurement, not a timing test: it prints
// the figures next to the targets and fails only if the reply never shows up.
// Run it with `make bench`, or:
//
//	LATCH_WORKLOAD=1 go test -count=1 -run TestStreamWorkload -v .
//
// It measures two binaries in the same run, interleaved: this tree's and a
// base, the build before the change (benchbase_test.go: BENCH_BASE, by
// default where this branch left main; "none" measures this tree's
// alone), and reports each figure for both and
// their ratio. LATCH_WORKLOAD_BIN=path measures that binary instead of this
// tree's.

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"latch/mcp/mcptestutil"
	"latch/session/ollamatest"
)

// Targets (from the issue); reported, not enforced.
const (
	targetStreamCPU = 900 * time.Millisecond
	targetLatency   = 300 * time.Millisecond
	targetIdlePct   = 1.0
)

// workloadEnd is appended to the markdown so the end of the reply can be
// recognised on the screen.
const workloadEnd = "Workload complete: zebra quokka marmalade."

type workloadRun struct {
	chunks      int
	streamCPU   time.Duration // latch's utime+stime, Enter → end of reply on screen
	testCPU     time.Duration // the test process's own CPU over the same span
	enterToEnd  time.Duration // Enter → end of reply on screen
	ttfb        time.Duration // Enter → first response byte on the wire
	streamWall  time.Duration // first → last response byte on the wire
	endLatency  time.Duration // last response byte → end of reply on screen
	doneLatency time.Duration // last response byte → "tok/s" in the status line
	outBytes    int           // bytes latch wrote to the terminal, Enter → end on screen
	frames      int           // frames in those bytes (synchronized-output brackets)
	repaints    int           // frames that clear the screen or write (almost) every row
	rowsWritten int           // rows written, summed over the frames
	idleCPU     time.Duration
	idleWall    time.Duration
	// the same two CPU figures from the threads' schedstat (ns resolution)
	streamCPUns time.Duration
	idleCPUns   time.Duration
	peakRSSKiB  int
	startRSS    rssSplit      // at the first frame, the start-up work done
	endRSS      rssSplit      // at the end, after the idle window
	startup     time.Duration // latch started → the input line drawn
	wordWrites  int           // words written to the chat's rows, Enter → end on screen
	replyWords  int           // words of the reply
	// words of the reply (or pieces of them) written anywhere on the
	// screen, Enter → end on screen (replyWordsWritten)
	anyWordWrites int
}

func (r workloadRun) idlePct() float64 {
	return 100 * r.idleCPU.Seconds() / r.idleWall.Seconds()
}

func (r workloadRun) idlePctNs() float64 {
	return 100 * r.idleCPUns.Seconds() / r.idleWall.Seconds()
}

func TestStreamWorkload(t *testing.T) {
	if os.Getenv("LATCH_WORKLOAD") != "1" {
		t.Skip("a measurement; set LATCH_WORKLOAD=1 to run it (make bench does)")
	}
	bin := latchBinary(t, false) // never -race: the figures are the real binary's
	if other := os.Getenv("LATCH_WORKLOAD_BIN"); other != "" {
		bin = other // another build, e.g. an older commit's, to compare
	}
	base, baseName := baseBinary(t)
	tck, tckNote := clockTicks()
	var runs, baseRuns []workloadRun
	for i := 1; i <= 3; i++ {
		if base != "" {
			baseRuns = append(baseRuns, runWorkload(t, base, tck))
		}
		runs = append(runs, runWorkload(t, bin, tck))
		t.Logf("run %d done", i)
	}
	report := workloadReport(runs, tck, tckNote)
	if base != "" {
		report += "\n" + compareReport(baseName, baseRuns, runs)
	}
	t.Log("\n" + report)
	fmt.Print(report)
}

// cupRow matches a cursor move to a row (CUP), the way latch's screen
// starts writing a row: at its first column, or where a row that grew
// changed.
var cupRow = regexp.MustCompile(`\x1b\[(\d+)(?:;\d+)?H`)

// countFrames splits a terminal's byte stream into frames at each
// synchronized-output bracket (CSI ? 2026 h) and counts them, the frames
// that repaint the screen (clear it, or write at least 3/4 of its rows),
// and
// the rows written in all.
//
// A binary without synchronized output (before latch drew its own frames)
// is measured too: its frames are Bubble Tea's, each starting at the
// cursor's home (CSI H) and writing its changed rows each ended by CR LF.
func countFrames(raw []byte, rows int) (frames, repaints, written int) {
	if !bytes.Contains(raw, []byte("\x1b[?2026h")) {
		for _, f := range bytes.Split(raw, []byte("\x1b[H"))[1:] {
			n := bytes.Count(f, []byte("\r\n")) + 1
			frames, written = frames+1, written+n
			if n >= rows*3/4 {
				repaints++
			}
		}
		return frames, repaints, written
	}
	for _, f := range bytes.Split(raw, []byte("\x1b[?2026h"))[1:] {
		frames++
		seen := map[string]bool{}
		for _, m := range cupRow.FindAllSubmatch(f, -1) {
			seen[string(m[1])] = true
		}
		written += len(seen)
		if bytes.Contains(f, []byte("\x1b[2J")) || len(seen) >= rows*3/4 {
			repaints++
		}
	}
	return frames, repaints, written
}

// cupAny matches a cursor move (CUP) to a row and perhaps a column.
var cupAny = regexp.MustCompile(`\x1b\[(\d+)(?:;\d+)?H`)

// chatWordsWritten counts the words written to rows first..last (1-based,
// the chat's) in a terminal byte stream: the text after each cursor move
// to one of those rows, up to the next move, without escape sequences.
// A word cut by a frame (its start written in one, its end in the next)
// counts twice.
func chatWordsWritten(raw []byte, first, last int) int {
	n := 0
	locs := cupAny.FindAllSubmatchIndex(raw, -1)
	for i, l := range locs {
		row, _ := strconv.Atoi(string(raw[l[2]:l[3]]))
		if row < first || row > last {
			continue
		}
		end := len(raw)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		n += countWords(stripEscapes(string(raw[l[1]:end])))
	}
	return n
}

// replyWordsWritten counts the words of the reply written in raw,
// wherever on the screen: the text between escape sequences, split at
// spaces, trimmed of punctuation, that is a word of the reply or a piece
// of one (a word written in two pieces counts twice). Words of the app's
// own (a status line, a spinner) do not count, unless the reply has them.
func replyWordsWritten(raw []byte, text string) int {
	pieces := map[string]bool{}
	for _, f := range strings.Fields(text) {
		w := wordCore(f)
		for i := range len(w) {
			for j := i + 1; j <= len(w); j++ {
				pieces[w[i:j]] = true
			}
		}
	}
	n := 0
	for _, f := range strings.Fields(stripEscapes(string(raw))) {
		if w := wordCore(f); hasLetter(w) && pieces[w] {
			n++
		}
	}
	return n
}

// wordCore is f lower-cased without the punctuation around it.
func wordCore(f string) string {
	return strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
}

func hasLetter(s string) bool { return strings.IndexFunc(s, unicode.IsLetter) >= 0 }

// escape matches the escape sequences latch writes (CSI, OSC).
var escape = regexp.MustCompile(`\x1b(\[[0-9;:?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|.)`)

func stripEscapes(s string) string { return escape.ReplaceAllString(s, " ") }

// countWords counts the words of s that hold a letter or a digit (not a
// markdown marker, not a table's rule).
func countWords(s string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if strings.IndexFunc(f, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0 {
			n++
		}
	}
	return n
}

// workloadText is the workload's reply: 3,000 tokens of markdown ending
// with workloadEnd.
func workloadText() string { return ollamatest.Markdown(3000) + workloadEnd + "\n" }

// runWorkload runs latch once against the workload and measures it.
func runWorkload(t *testing.T, bin string, tck int) workloadRun {
	t.Helper()
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion"}})
	defer fake.Close()
	text := workloadText()
	fake.Script(ollamatest.Turn{Chunks: ollamatest.Tokens(text), Delay: time.Millisecond})
	r := measureReply(t, latchApp(bin), fake.Host(), text, tck)
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("the fake recorded %d chat requests, want 1", n)
	}
	return r
}

// replyApp is a terminal chat app the workload measures: how to start it
// and how its screen says where it is. latchApp is latch's; the
// side-by-side figures (sidebyside_test.go) add crush's and kit's.
type replyApp struct {
	name string
	// start runs the app in a 120×40 pty against the model server at host
	// (host:port).
	start func(t *testing.T, host string) *ptyTerm
	drawn func(scr string) bool // its input is drawn: start-up ends
	ready func(scr string) bool // its first screen is whole
	typed func(scr, prompt string) bool
	// ended: the end of the reply is on screen.
	ended func(scr string) bool
	// done, if set, is the app saying the reply is over (latch: tok/s);
	// without it the idle window starts once the screen is still.
	done func(scr string) bool
	// chatFirst..chatLast are the rows chatWordsWritten counts (0: none).
	chatFirst, chatLast int
	quit                func(t *testing.T, tm *ptyTerm)
	// seen, if set, is given the app, its screen when the reply ended on
	// it and what it wrote from Enter until then.
	seen func(t *testing.T, tm *ptyTerm, scr string, raw []byte)
}

// latchApp is latch, bin, as the workload has always measured it.
func latchApp(bin string) replyApp {
	return replyApp{
		name: "latch",
		start: func(t *testing.T, host string) *ptyTerm {
			return startLatch(t, bin, ptyOptions{Rows: 40, Cols: 120, Host: host, Args: []string{"--model", e2eModel}})
		},
		drawn:     func(s string) bool { return inputRow(s) >= 0 },
		ready:     func(s string) bool { return strings.HasPrefix(s, " latch │ ") && inputRow(s) >= 0 },
		typed:     func(s, prompt string) bool { return inputText(s) == prompt },
		ended:     func(s string) bool { return strings.Contains(unwrapped(s), workloadEnd) },
		done:      func(s string) bool { return strings.Contains(statusLine(s), "tok/s") },
		chatFirst: 2, chatLast: 37,
		quit: func(t *testing.T, tm *ptyTerm) {
			if ctrlCUntilExit(tm, 5*time.Second) == nil {
				t.Errorf("latch did not exit after Ctrl+C")
			}
		},
	}
}

// measureReply runs app once against a model server at host that
// answers the prompt with text (3,000 chunks, 1 ms apart) and measures it.
func measureReply(t *testing.T, app replyApp, host, text string, tck int) workloadRun {
	t.Helper()
	tap := newWireTap(t, host)
	defer tap.Close()

	started := time.Now()
	tm := app.start(t, tap.Addr())
	defer app.quit(t, tm)
	_, drawn, _ := tm.waitScreenAt(mcptestutil.HangBound(10*time.Second), app.drawn)
	tm.waitScreen(t, 10*time.Second, app.name+"'s first screen", app.ready)
	// Let the start-up work (model probe, first frames) finish.
	time.Sleep(500 * time.Millisecond)
	r0 := rssNow(t, tm.Pid)
	const prompt = "Write a long markdown document."
	tm.typeKeys(prompt)
	tm.waitScreen(t, 5*time.Second, "the prompt in "+app.name+"'s input", func(s string) bool {
		return app.typed(s, prompt)
	})

	r := workloadRun{chunks: len(ollamatest.Tokens(text)), replyWords: countWords(text), startup: drawn.Sub(started), startRSS: r0}
	out0 := len(tm.rawOutput())
	tap.mark()
	self0 := selfCPU(t, tck)
	cpu0, ns0 := procCPU(t, tm.Pid, tck), schedCPU(tm.Pid)
	enter := time.Now()
	tm.sendKey(keyEnter)

	scr, seen, ok := tm.waitScreenAt(60*time.Second, app.ended)
	cpu1, ns1 := procCPU(t, tm.Pid, tck), schedCPU(tm.Pid)
	self1 := selfCPU(t, tck)
	if !ok {
		t.Fatalf("the end of the reply (%q) was not on %s's screen within 60 s; screen:\n%s", workloadEnd, app.name, dumpScreen(scr))
	}
	raw := tm.rawOutput()
	r.outBytes = len(raw) - out0
	r.frames, r.repaints, r.rowsWritten = countFrames(raw[out0:], 40)
	if app.chatFirst > 0 {
		r.wordWrites = chatWordsWritten(raw[out0:], app.chatFirst, app.chatLast)
	}
	r.anyWordWrites = replyWordsWritten(raw[out0:], text)
	if app.seen != nil {
		app.seen(t, tm, scr, raw[out0:])
	}

	var done time.Time
	if app.done != nil {
		_, done, ok = tm.waitScreenAt(10*time.Second, app.done)
		if !ok {
			t.Errorf("the status line never showed tok/s after the reply; screen:\n%s", dumpScreen(tm.screen()))
		}
	} else {
		done, ok = waitStill(tm, 300*time.Millisecond, 5*time.Second), true
	}
	first, last, req := tap.times() // before the idle window: nothing after the reply counts

	idleStart, idleCPU0, idleNs0 := time.Now(), procCPU(t, tm.Pid, tck), schedCPU(tm.Pid)
	time.Sleep(5 * time.Second)
	r.idleCPU, r.idleCPUns, r.idleWall = procCPU(t, tm.Pid, tck)-idleCPU0, schedCPU(tm.Pid)-idleNs0, time.Since(idleStart)
	r.peakRSSKiB = peakRSS(t, tm.Pid)
	r.endRSS = rssNow(t, tm.Pid)

	r.streamCPU, r.streamCPUns = cpu1-cpu0, ns1-ns0
	r.testCPU = self1 - self0
	r.enterToEnd = seen.Sub(enter)
	r.ttfb = first.Sub(enter)
	r.streamWall = last.Sub(first)
	r.endLatency = seen.Sub(last)
	if ok {
		r.doneLatency = done.Sub(last)
	}
	if req.IsZero() || first.IsZero() {
		t.Errorf("the wire tap saw no chat request/response after Enter")
	}
	return r
}

// waitStill waits until tm wrote nothing for quiet (at most bound) and
// returns when its last output came.
func waitStill(tm *ptyTerm, quiet, bound time.Duration) time.Time {
	deadline := time.Now().Add(bound)
	for {
		n := len(tm.rawOutput())
		at := time.Now()
		time.Sleep(quiet)
		if len(tm.rawOutput()) == n || time.Now().After(deadline) {
			return at
		}
	}
}

// ---------------------------------------------------------------------------
// report

func workloadReport(runs []workloadRun, tck int, tckNote string) string {
	var b strings.Builder
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
	sec := func(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }
	type row struct {
		name, target string
		val          func(workloadRun) float64
		format       func(float64) string
		met          func(float64) bool
	}
	rows := []row{
		{"latch CPU, Enter → end on screen", "≤ 0.90 s",
			func(r workloadRun) float64 { return r.streamCPU.Seconds() },
			func(v float64) string { return fmt.Sprintf("%.2f s", v) },
			func(v float64) bool { return v <= targetStreamCPU.Seconds() }},
		{"  same, from schedstat (ns resolution)", "≤ 0.90 s",
			func(r workloadRun) float64 { return r.streamCPUns.Seconds() },
			func(v float64) string { return fmt.Sprintf("%.3f s", v) },
			func(v float64) bool { return v <= targetStreamCPU.Seconds() }},
		{"end of reply on screen after stream end", "≤ 300 ms",
			func(r workloadRun) float64 { return float64(r.endLatency) },
			func(v float64) string { return ms(time.Duration(v)) },
			func(v float64) bool { return time.Duration(v) <= targetLatency }},
		{"idle CPU over 5 s afterwards", "< 1 %",
			func(r workloadRun) float64 { return r.idlePct() },
			func(v float64) string { return fmt.Sprintf("%.2f %%", v) },
			func(v float64) bool { return v < targetIdlePct }},
		{"  same, from schedstat (ns resolution)", "< 1 %",
			func(r workloadRun) float64 { return r.idlePctNs() },
			func(v float64) string { return fmt.Sprintf("%.2f %%", v) },
			func(v float64) bool { return v < targetIdlePct }},
		{"peak RSS (VmHWM)", "",
			func(r workloadRun) float64 { return float64(r.peakRSSKiB) },
			func(v float64) string { return fmt.Sprintf("%.1f MiB", v/1024) }, nil},
		{"stream wall time (first → last byte)", "",
			func(r workloadRun) float64 { return float64(r.streamWall) },
			func(v float64) string { return sec(time.Duration(v)) }, nil},
		{"Enter → first response byte", "",
			func(r workloadRun) float64 { return float64(r.ttfb) },
			func(v float64) string { return ms(time.Duration(v)) }, nil},
		{"Enter → end of reply on screen", "",
			func(r workloadRun) float64 { return float64(r.enterToEnd) },
			func(v float64) string { return sec(time.Duration(v)) }, nil},
		{"stream end → tok/s in status line", "",
			func(r workloadRun) float64 { return float64(r.doneLatency) },
			func(v float64) string { return ms(time.Duration(v)) }, nil},
		{"terminal output during the stream", "",
			func(r workloadRun) float64 { return float64(r.outBytes) },
			func(v float64) string { return fmt.Sprintf("%.0f KiB", v/1024) }, nil},
		{"  per frame", "",
			func(r workloadRun) float64 { return float64(r.outBytes) / float64(max(r.frames, 1)) },
			func(v float64) string { return fmt.Sprintf("%.0f B", v) }, nil},
		{"frames during the stream", "",
			func(r workloadRun) float64 { return float64(r.frames) },
			func(v float64) string { return fmt.Sprintf("%.0f", v) }, nil},
		{"  rows written per frame", "",
			func(r workloadRun) float64 { return float64(r.rowsWritten) / float64(max(r.frames, 1)) },
			func(v float64) string { return fmt.Sprintf("%.1f", v) }, nil},
		{"repaints (≥ 3/4 of the rows) in the stream", "",
			func(r workloadRun) float64 { return float64(r.repaints) },
			func(v float64) string { return fmt.Sprintf("%.0f", v) }, nil},
		{"test process CPU (fake, tap, emulator)", "",
			func(r workloadRun) float64 { return r.testCPU.Seconds() },
			func(v float64) string { return fmt.Sprintf("%.2f s", v) }, nil},
	}
	fmt.Fprintf(&b, "latch streaming workload: %d-token markdown reply (%d chunks, 1 ms apart), 120×40 pty, %d CPUs, %s\n",
		3000, runs[0].chunks, runtime.NumCPU(), runtime.GOOS+"/"+runtime.GOARCH)
	fmt.Fprintf(&b, "CPU times from /proc/PID/stat utime+stime at %d ticks/s (%s): resolution %v;\n", tck, tckNote, time.Second/time.Duration(tck))
	fmt.Fprintf(&b, "\"schedstat\" rows sum /proc/PID/task/*/schedstat run time (ns) over latch's threads\n\n")
	w := 42
	fmt.Fprintf(&b, "%-*s", w, "measure")
	for i := range runs {
		fmt.Fprintf(&b, " %10s", fmt.Sprintf("run %d", i+1))
	}
	fmt.Fprintf(&b, " %10s  %-9s %s\n", "median", "target", "")
	fmt.Fprintln(&b, strings.Repeat("-", w+11*len(runs)+11+12+5))
	for _, r := range rows {
		vals := make([]float64, len(runs))
		fmt.Fprintf(&b, "%-*s", w, r.name)
		for i, run := range runs {
			vals[i] = r.val(run)
			fmt.Fprintf(&b, " %10s", r.format(vals[i]))
		}
		med := median(vals)
		verdict := ""
		if r.met != nil {
			verdict = "MISSED"
			if r.met(med) {
				verdict = "met"
			}
		}
		fmt.Fprintf(&b, " %10s  %-9s %s\n", r.format(med), r.target, verdict)
	}
	fmt.Fprintln(&b, "\n(targets are reported, not enforced; \"end on screen\" = the reply's last sentence is in the emulated screen;")
	fmt.Fprintln(&b, " \"stream end\" = the last byte of the chat response on the wire, seen by a TCP tap in front of the fake;")
	fmt.Fprintln(&b, " the idle window starts when the status line shows tok/s)")
	return b.String()
}

// compareReport sets the figures of the base's runs beside this tree's,
// each a median of the runs, and their ratio.
func compareReport(baseName string, base, runs []workloadRun) string {
	type row struct {
		name, target string
		val          func(workloadRun) float64
		format       string
	}
	rows := []row{
		{"bytes to the terminal per reply", "≤ 32 KB", func(r workloadRun) float64 { return float64(r.outBytes) / 1000 }, "%.1f KB"},
		{"each word of the reply written (times)", "≤ 1.1", func(r workloadRun) float64 { return float64(r.wordWrites) / float64(max(r.replyWords, 1)) }, "%.2f"},
		{"latch CPU, Enter → end on screen (schedstat)", "≤ 0.30 s", func(r workloadRun) float64 { return r.streamCPUns.Seconds() }, "%.3f s"},
		{"end of reply on screen after stream end", "≤ 50 ms", func(r workloadRun) float64 { return float64(r.endLatency) / float64(time.Millisecond) }, "%.0f ms"},
		{"frames during the stream", "", func(r workloadRun) float64 { return float64(r.frames) }, "%.0f"},
		{"peak RSS (VmHWM)", "≤ 30 MB", func(r workloadRun) float64 { return float64(r.peakRSSKiB) * 1024 / 1e6 }, "%.1f MB"},
		{"  peak by the first frame (VmHWM)", "", func(r workloadRun) float64 { return float64(r.startRSS.hwm) * 1024 / 1e6 }, "%.1f MB"},
		{"  RSS at the end: the binary's pages (RssFile)", "", func(r workloadRun) float64 { return float64(r.endRSS.file) * 1024 / 1e6 }, "%.1f MB"},
		{"  RSS at the end: anonymous (RssAnon)", "", func(r workloadRun) float64 { return float64(r.endRSS.anon) * 1024 / 1e6 }, "%.1f MB"},
		{"start-up to a drawn input", "≤ 0.05 s", func(r workloadRun) float64 { return r.startup.Seconds() }, "%.3f s"},
		{"idle CPU over 5 s afterwards (schedstat)", "", func(r workloadRun) float64 { return r.idlePctNs() }, "%.2f %%"},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "this tree against the base (%s), medians of %d interleaved runs each\n\n", baseName, len(runs))
	w := 46
	fmt.Fprintf(&b, "%-*s %12s %12s %7s  %s\n", w, "measure", "base", "this", "ratio", "target")
	fmt.Fprintln(&b, strings.Repeat("-", w+12+12+7+14))
	for _, r := range rows {
		bv, tv := make([]float64, len(base)), make([]float64, len(runs))
		for i := range base {
			bv[i] = r.val(base[i])
		}
		for i := range runs {
			tv[i] = r.val(runs[i])
		}
		bm, tm := median(bv), median(tv)
		ratio := "-"
		if bm > 0 {
			ratio = fmt.Sprintf("%.2f×", tm/bm)
		}
		fmt.Fprintf(&b, "%-*s %12s %12s %7s  %s\n", w, r.name, fmt.Sprintf(r.format, bm), fmt.Sprintf(r.format, tm), ratio, r.target)
	}
	fmt.Fprintln(&b, "\n(a word counts as written each time a frame writes it, or part of it, to a row of the chat;")
	fmt.Fprintln(&b, " a reply's words are its markdown's words that hold a letter or a digit)")
	return b.String()
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ---------------------------------------------------------------------------
// /proc

// clockTicks returns the clock ticks per second of /proc/PID/stat, from
// `getconf CLK_TCK`, or 100 (the value on Linux) if that cannot run.
func clockTicks() (int, string) {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err == nil && n > 0 {
			return n, "getconf CLK_TCK"
		}
	}
	return 100, "assumed: getconf CLK_TCK failed"
}

// statCPU parses utime+stime from a /proc/…/stat file.
func statCPU(t *testing.T, path string, tck int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	// The command name, in parentheses, may contain spaces: fields are
	// counted after its closing parenthesis (field 3, state, comes first).
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		t.Fatalf("%s: unexpected format %q", path, b)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return time.Duration(ut+st) * time.Second / time.Duration(tck)
}

func procCPU(t *testing.T, pid, tck int) time.Duration {
	return statCPU(t, fmt.Sprintf("/proc/%d/stat", pid), tck)
}

func selfCPU(t *testing.T, tck int) time.Duration { return statCPU(t, "/proc/self/stat", tck) }

// schedCPU sums the on-CPU time (ns) of the process's threads from
// /proc/PID/task/*/schedstat. Go rarely ends threads, so the sum is a
// precise counterpart of utime+stime; 0 if schedstat is not available.
func schedCPU(pid int) time.Duration {
	dir := fmt.Sprintf("/proc/%d/task", pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var sum int64
	for _, task := range tasks {
		b, err := os.ReadFile(dir + "/" + task.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(b))
		if len(f) > 0 {
			n, _ := strconv.ParseInt(f[0], 10, 64)
			sum += n
		}
	}
	return time.Duration(sum)
}

// rssSplit is a moment's memory of a process, from /proc/PID/status, in
// KiB: its peak so far, and its resident pages mapped from files (for
// latch, almost all its own binary's) and anonymous (the Go heap, stacks
// and the runtime's own).
type rssSplit struct{ hwm, file, anon int }

// rssNow reads the rssSplit of the process pid.
func rssNow(t *testing.T, pid int) rssSplit {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read status: %v", err)
	}
	var r rssSplit
	for _, line := range strings.Split(string(b), "\n") {
		name, v, _ := strings.Cut(line, ":")
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
		switch name {
		case "VmHWM":
			r.hwm = n
		case "RssFile":
			r.file = n
		case "RssAnon":
			r.anon = n
		}
	}
	return r
}

// peakRSS returns VmHWM in KiB.
func peakRSS(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatalf("read status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}

// ---------------------------------------------------------------------------
// wire tap

// wireTap is a TCP proxy in front of the fake server that notes when the
// response bytes go to latch: the fake does not say when it wrote its last
// chunk, and the tap sees it exactly as latch's socket does.
type wireTap struct {
	ln     net.Listener
	target string

	mu          sync.Mutex
	marked      bool
	firstUp     time.Time // first request byte after mark
	first, last time.Time // first and last response byte after mark
	conns       []net.Conn
	wg          sync.WaitGroup
}

func newWireTap(t *testing.T, target string) *wireTap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &wireTap{ln: ln, target: target}
	w.wg.Add(1)
	go w.accept()
	return w
}

func (w *wireTap) Addr() string { return w.ln.Addr().String() }

func (w *wireTap) accept() {
	defer w.wg.Done()
	for {
		c, err := w.ln.Accept()
		if err != nil {
			return
		}
		s, err := net.Dial("tcp", w.target)
		if err != nil {
			c.Close()
			continue
		}
		w.mu.Lock()
		w.conns = append(w.conns, c, s)
		w.mu.Unlock()
		w.wg.Add(2)
		go w.pipe(s, c, false)
		go w.pipe(c, s, true)
	}
}

// pipe copies src to dst, noting the times of what it copies.
func (w *wireTap) pipe(dst, src net.Conn, down bool) {
	defer w.wg.Done()
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
			now := time.Now()
			w.mu.Lock()
			if w.marked {
				switch {
				case !down && w.firstUp.IsZero():
					w.firstUp = now
				case down:
					if w.first.IsZero() {
						w.first = now
					}
					w.last = now
				}
			}
			w.mu.Unlock()
		}
		if err != nil { // io.EOF or closed
			return
		}
	}
}

// mark starts timing: only traffic after it counts.
func (w *wireTap) mark() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.marked = true
	w.firstUp, w.first, w.last = time.Time{}, time.Time{}, time.Time{}
}

// times returns the first and last response byte and the first request
// byte since mark.
func (w *wireTap) times() (first, last, firstUp time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.first, w.last, w.firstUp
}

func (w *wireTap) Close() {
	w.ln.Close()
	w.mu.Lock()
	for _, c := range w.conns {
		c.Close()
	}
	w.mu.Unlock()
	w.wg.Wait()
}
