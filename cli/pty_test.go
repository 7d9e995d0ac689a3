package cli

// Helpers shared by the end-to-end tests (e2e_test.go) and the streaming
// workload (workload_test.go): build the latch binary once per test run, run
// it in a real pseudo-terminal, and keep a model of the SCREEN it draws, so
// that assertions are about the cells a person sees, not about raw bytes.
//
// The screen model is a small terminal emulator for the subset of VT/xterm
// that Bubble Tea v1, lipgloss and termenv emit (see vtScreen). It answers the
// terminal queries the program waits for (OSC 10/11 colours, DSR cursor
// position, DA1), so that lipgloss.HasDarkBackground returns at once instead
// of timing out.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"latch/mcp/mcptestutil"
)

// ---------------------------------------------------------------------------
// building the binary

var (
	binMu    sync.Mutex
	binBuilt = map[bool]string{} // race → path
)

// latchBinary builds ./latch from the module root once per test process (and
// per flavour: with or without -race) and returns its path. It is the test
// build: with the latchtest tag, so it has the crash points.
//
// There is no hook at the end of the test process (no TestMain), so the
// binary cannot be removed when the tests end. Instead it is named after
// this process, in a directory of its own under the temp dir
// (latch-e2e-UID/latch-PID[-race]), and each build removes the binaries of
// processes that no longer run: at most one finished run's binaries stay.
func latchBinary(t testing.TB, race bool) string {
	t.Helper()
	binMu.Lock()
	defer binMu.Unlock()
	if p, ok := binBuilt[race]; ok {
		return p
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("latch-e2e-%d", os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	removeStaleBinaries(dir)
	name := fmt.Sprintf("latch-%d", os.Getpid())
	if race {
		name += "-race"
	}
	bin := filepath.Join(dir, name)
	// The latchtest tag builds in the crash points (session/crash.go) the
	// crash tests arm with LATCH_TEST_CRASH_AT; a release build has none.
	args := []string{"build", "-tags", "latchtest", "-o", bin}
	if race {
		args = append(args, "-race")
	}
	// The module's root is the main package (the tests run in cli/).
	args = append(args, ".")
	start := time.Now()
	build := exec.Command("go", args...)
	build.Dir = mcptestutil.ModuleRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("built %s (race=%v) in %v", bin, race, time.Since(start).Round(time.Millisecond))
	binBuilt[race] = bin
	return bin
}

// removeStaleBinaries removes the latch-PID[-race] files in dir whose
// process is gone.
func removeStaleBinaries(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "latch-")
		if !ok {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSuffix(rest, "-race"))
		if err != nil || pid == os.Getpid() {
			continue
		}
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// ---------------------------------------------------------------------------
// running it in a pty

// ptyOptions say how to start latch.
type ptyOptions struct {
	Rows, Cols int
	Host       string   // OLLAMA_HOST
	Args       []string // command-line arguments
	Env        []string // extra KEY=VALUE entries
	// Typeahead is typed into the terminal before latch starts: keys a
	// person (or a program) typed ahead of any question.
	Typeahead string
	// Silent is a terminal that answers no query (no colour, no cursor
	// report, no DA1), as some terminals and multiplexers do.
	Silent bool
	// KeysAtQuery is typed when latch first asks the terminal for its
	// background (OSC 11), before the terminal answers: keys a person
	// typed as latch started, while it waited for the answer.
	KeysAtQuery string
	// LateSyncAnswer holds back the answer to the question about
	// synchronized output (DECRQM, with the DA1 after it) until latch has
	// given up waiting for it and opened its screen (the alternate
	// screen), as on a slow link or a busy machine.
	LateSyncAnswer bool
	// LateBackground is the background colour (rgb:R/G/B's R/G/B) the
	// terminal answers OSC 11 with; the answer (with the DA1 after it) is
	// held back until the test calls answerBackground, after latch gave
	// up waiting for it, as on a slow link.
	LateBackground string
}

// ptyTerm is latch running in a pseudo-terminal, with the screen it drew.
type ptyTerm struct {
	t      testing.TB
	cmd    *exec.Cmd
	master *os.File
	// slave is the test's own descriptor of the terminal side. Keeping it
	// open keeps the terminal (and its termios) alive after latch exits, so
	// the exit state can be inspected; closing it ends the reader with EIO.
	slave *os.File
	Pid   int
	// initial is the terminal's termios before latch started.
	initial *unix.Termios

	mu       sync.Mutex
	emu      *vtScreen
	raw      bytes.Buffer
	changed  chan struct{} // closed and replaced whenever output arrives
	readDone chan struct{}
	exited   chan struct{}
	state    *os.ProcessState
	waitErr  error

	closeOnce sync.Once
	silent    bool   // answer no query (ptyOptions.Silent)
	atQuery   string // typed at the first OSC 11 query (ptyOptions.KeysAtQuery), then ""
	lateSync  bool   // hold the DECRQM answer back (ptyOptions.LateSyncAnswer)
	heldSync  []byte // the answer held back, until the alternate screen is on
	lateBG    string // answer OSC 11 with this colour, late (ptyOptions.LateBackground)
	bgMu      sync.Mutex
	heldBG    []byte // the OSC 11 answer held back, until answerBackground
}

// cleanEnv is the whole environment of the child: nothing of the developer's
// (config, state, Ollama host) leaks in.
func cleanEnv(t testing.TB, host string, extra []string) []string {
	t.Helper()
	root := t.TempDir()
	cfg := filepath.Join(root, "config.json")
	if err := os.WriteFile(cfg, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(root, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(root, "config"),
		"XDG_STATE_HOME=" + filepath.Join(root, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(root, "cache"),
		"XDG_DATA_HOME=" + filepath.Join(root, "data"),
		"TERM=xterm-256color",
		"LATCH_CONFIG=" + cfg,
		"OLLAMA_HOST=" + host,
		goraceEnv(),
	}
	if p := os.Getenv("LATCH_TEST_PROFILE_DIR"); p != "" {
		env = append(env, "LATCH_TEST_PROFILE_DIR="+p) // testprofile.go
	}
	for _, d := range []string{"home", "config", "state", "cache", "data", "cwd"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return append(env, extra...)
}

// goraceEnv is GORACE for the latch binaries the tests run: a race-built
// binary sleeps a second before it exits (atexit_sleep_ms, 1000 by
// default), so that goroutines still running may report a race; a test
// that runs latch dozens of times spent about as many seconds asleep
// (TestTwoProcessesApproveOnce: 80 runs). What the person
// running the tests set in GORACE is kept, atexit_sleep_ms too.
func goraceEnv() string {
	v := os.Getenv("GORACE")
	if !strings.Contains(v, "atexit_sleep_ms") {
		v = strings.TrimSpace(v + " atexit_sleep_ms=0")
	}
	return "GORACE=" + v
}

// startLatch runs bin in a new pty of o.Rows×o.Cols. The process is killed
// (if still running) and the pty closed when the test ends.
func startLatch(t testing.TB, bin string, o ptyOptions) *ptyTerm {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Fatalf("pty.Open: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Rows: uint16(o.Rows), Cols: uint16(o.Cols)}); err != nil {
		t.Fatalf("pty.Setsize: %v", err)
	}
	initial, err := unix.IoctlGetTermios(int(master.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatalf("termios: %v", err)
	}
	env := cleanEnv(t, o.Host, o.Env)
	cmd := exec.Command(bin, o.Args...)
	cmd.Env = env
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			// a working directory without a latch.json in it
			cmd.Dir = filepath.Join(filepath.Dir(v), "cwd")
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	// As pty.StartWithSize does: a new session with the pty as its
	// controlling terminal (so latch is in the foreground process group).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}

	tm := &ptyTerm{
		t: t, cmd: cmd, master: master, slave: slave, initial: initial,
		emu:      newVTScreen(o.Rows, o.Cols),
		silent:   o.Silent,
		atQuery:  o.KeysAtQuery,
		lateSync: o.LateSyncAnswer,
		lateBG:   o.LateBackground,
		changed:  make(chan struct{}),
		readDone: make(chan struct{}),
		exited:   make(chan struct{}),
	}
	// Start reading before the child runs: its first write is a query that
	// it waits on.
	go tm.readLoop()
	if o.Typeahead != "" {
		if _, err := master.Write([]byte(o.Typeahead)); err != nil {
			t.Fatalf("typing ahead: %v", err)
		}
	}
	if err := cmd.Start(); err != nil {
		tm.closeTTY()
		master.Close()
		t.Fatalf("start %s: %v", bin, err)
	}
	tm.Pid = cmd.Process.Pid
	go func() {
		err := cmd.Wait()
		tm.mu.Lock()
		tm.state, tm.waitErr = cmd.ProcessState, err
		tm.mu.Unlock()
		close(tm.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-tm.exited:
		default:
			_ = cmd.Process.Kill() // this test's own child, by its pid
			<-tm.exited
		}
		tm.closeTTY()
		select {
		case <-tm.readDone:
		case <-time.After(mcptestutil.HangBound(0)):
			t.Errorf("pty reader did not stop")
		}
		master.Close()
		tm.reportRace()
	})
	return tm
}

// raceExit is the exit status of a -race build that found a data race.
const raceExit = 66

// reportRace fails the test with the race detector's report when the
// -race build of latch found a data race: on a terminal the report is
// written to the screen, so without this only "exit status 66" is seen.
func (tm *ptyTerm) reportRace() {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	if tm.state == nil || tm.state.ExitCode() != raceExit {
		return
	}
	out := tm.raw.String()
	if i := strings.Index(out, "WARNING: DATA RACE"); i >= 0 {
		out = out[i:]
	}
	tm.t.Errorf("latch (-race) exited %d, a data race:\n%s", raceExit, out)
}

// readLoop feeds the output to the emulator until the terminal goes away
// (EIO once latch exited and the test closed its side). Replies to terminal
// queries are written back at once, as a terminal would.
func (tm *ptyTerm) readLoop() {
	defer close(tm.readDone)
	buf := make([]byte, 64<<10)
	for {
		n, err := tm.master.Read(buf)
		if n > 0 {
			tm.mu.Lock()
			tm.raw.Write(buf[:n])
			reply := tm.emu.feed(buf[:n])
			altScreen := tm.emu.altActive
			close(tm.changed)
			tm.changed = make(chan struct{})
			tm.mu.Unlock()
			if tm.atQuery != "" && bytes.Contains(buf[:n], []byte("\x1b]11;?")) {
				_, _ = tm.master.Write([]byte(tm.atQuery)) // only this goroutine reads atQuery
				tm.atQuery = ""
			}
			// Only this goroutine reads lateSync and heldSync.
			if tm.lateSync && bytes.Contains(reply, []byte("$y")) {
				tm.heldSync, reply, tm.lateSync = reply, nil, false
			}
			// Only this goroutine reads lateBG.
			if tm.lateBG != "" && bytes.Contains(reply, []byte("\x1b]11;rgb:")) {
				reply = bytes.Replace(reply, []byte("\x1b]11;rgb:0000/0000/0000"), []byte("\x1b]11;rgb:"+tm.lateBG), 1)
				tm.bgMu.Lock()
				tm.heldBG, reply, tm.lateBG = reply, nil, ""
				tm.bgMu.Unlock()
			}
			if tm.heldSync != nil && altScreen {
				reply, tm.heldSync = append(tm.heldSync, reply...), nil
			}
			if len(reply) > 0 && !tm.silent {
				_, _ = tm.master.Write(reply)
			}
		}
		if err != nil {
			tm.mu.Lock()
			close(tm.changed)
			tm.changed = make(chan struct{})
			tm.mu.Unlock()
			return
		}
	}
}

// answerBackground sends the terminal's answer to OSC 11 that
// ptyOptions.LateBackground held back. It fails the test when latch did
// not ask.
func (tm *ptyTerm) answerBackground() {
	tm.t.Helper()
	tm.bgMu.Lock()
	held := tm.heldBG
	tm.heldBG = nil
	tm.bgMu.Unlock()
	if held == nil {
		tm.t.Fatal("latch did not ask the terminal for its background (OSC 11)")
	}
	tm.typeKeys(string(held))
}

// closeTTY closes the test's descriptor of the terminal side.
func (tm *ptyTerm) closeTTY() {
	tm.closeOnce.Do(func() { tm.slave.Close() })
}

// screen returns the screen: rows joined by "\n", trailing spaces trimmed.
func (tm *ptyTerm) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.emu.String()
}

// rawOutput returns a copy of every byte latch wrote to the terminal.
func (tm *ptyTerm) rawOutput() []byte {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return bytes.Clone(tm.raw.Bytes())
}

// termState returns the emulator's view of the terminal modes.
func (tm *ptyTerm) termState() vtState {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.emu.state()
}

// waitScreenAt waits until cond(screen) holds, checking after every piece of
// output, and returns the screen and the time the condition was first seen
// true. ok is false on timeout, or if the terminal closed first.
func (tm *ptyTerm) waitScreenAt(timeout time.Duration, cond func(string) bool) (scr string, at time.Time, ok bool) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		scr, ch := tm.emu.String(), tm.changed
		tm.mu.Unlock()
		if cond(scr) {
			return scr, time.Now(), true
		}
		select {
		case <-ch:
		case <-tm.readDone:
			tm.mu.Lock()
			scr = tm.emu.String()
			tm.mu.Unlock()
			return scr, time.Now(), cond(scr)
		case <-deadline.C:
			return tm.screen(), time.Now(), false
		}
	}
}

// waitScreen waits until cond(screen) holds and returns the screen; the test
// fails, with a dump of the screen, after timeout (at least
// mcptestutil.HangBound's).
func (tm *ptyTerm) waitScreen(t testing.TB, timeout time.Duration, what string, cond func(string) bool) string {
	t.Helper()
	timeout = mcptestutil.HangBound(timeout) // a hang's bound, not a measure
	scr, _, ok := tm.waitScreenAt(timeout, cond)
	if !ok {
		t.Fatalf("timed out after %v waiting for %s; screen:\n%s", timeout, what, dumpScreen(scr))
	}
	return scr
}

// waitRaw is waitScreen for what latch wrote: it waits until cond holds
// of every byte written so far.
func (tm *ptyTerm) waitRaw(t testing.TB, timeout time.Duration, what string, cond func([]byte) bool) {
	t.Helper()
	timeout = mcptestutil.HangBound(timeout) // a hang's bound, not a measure
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		tm.mu.Lock()
		ok, ch := cond(tm.raw.Bytes()), tm.changed
		tm.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ch:
		case <-tm.readDone:
			tm.mu.Lock()
			ok = cond(tm.raw.Bytes())
			tm.mu.Unlock()
			if !ok {
				t.Fatalf("the terminal closed while waiting for %s; screen:\n%s", what, dumpScreen(tm.screen()))
			}
			return
		case <-deadline.C:
			t.Fatalf("timed out after %v waiting for %s; screen:\n%s", timeout, what, dumpScreen(tm.screen()))
		}
	}
}

// waitSettled is waitScreen for a screen that must be whole: cond holds
// and the screen has not changed for a moment (a frame reaches the
// terminal in pieces; a screen read between two of them can show a box
// without its last lines).
func (tm *ptyTerm) waitSettled(t testing.TB, timeout time.Duration, what string, cond func(string) bool) string {
	t.Helper()
	timeout = mcptestutil.HangBound(timeout) // a hang's bound, not a measure
	deadline := time.Now().Add(timeout)
	for {
		scr := tm.waitScreen(t, time.Until(deadline), what, cond)
		time.Sleep(150 * time.Millisecond) // not a measure: a frame's pieces come at once
		if now := tm.screen(); now == scr {
			return scr
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s to settle; screen:\n%s", timeout, what, dumpScreen(tm.screen()))
		}
	}
}

// typeKeys types s as one burst of input.
func (tm *ptyTerm) typeKeys(s string) {
	tm.t.Helper()
	if _, err := tm.master.Write([]byte(s)); err != nil {
		tm.t.Fatalf("typing %q: %v (%s)", s, err, tm.whyNoWrite())
	}
}

// Keys for sendKey.
const (
	keyEnter = "\r"
	keyEsc   = "\x1b"
	keyCtrlC = "\x03"
)

// sendKey sends one key's bytes (keyEnter, keyEsc, keyCtrlC, …).
func (tm *ptyTerm) sendKey(b string) {
	tm.t.Helper()
	if _, err := tm.master.Write([]byte(b)); err != nil {
		tm.t.Fatalf("sending key %q: %v (%s)", b, err, tm.whyNoWrite())
	}
}

// whyNoWrite says, for a key the terminal could not take, whether latch
// had exited and how, and the last of what it wrote.
func (tm *ptyTerm) whyNoWrite() string {
	select {
	case <-tm.exited:
	case <-time.After(2 * time.Second):
		return "latch is still running"
	}
	tm.mu.Lock()
	defer tm.mu.Unlock()
	out := tm.raw.String()
	out = out[max(0, len(out)-2000):]
	return fmt.Sprintf("latch exited: %v, %v; the last it wrote: %q", tm.state, tm.waitErr, out)
}

// waitExit waits for latch to exit and returns its state, or nil after
// timeout.
func (tm *ptyTerm) waitExit(timeout time.Duration) *os.ProcessState {
	select {
	case <-tm.exited:
		tm.mu.Lock()
		defer tm.mu.Unlock()
		return tm.state
	case <-time.After(timeout):
		return nil
	}
}

// drain closes the test's side of the terminal after latch exited and waits
// until every byte latch wrote has been read (timeout is a hang's bound, at
// least mcptestutil.HangBound's).
func (tm *ptyTerm) drain(timeout time.Duration) bool {
	tm.closeTTY()
	select {
	case <-tm.readDone:
		return true
	case <-time.After(mcptestutil.HangBound(timeout)):
		return false
	}
}

// termios reads the terminal's termios through the pty master (on Linux
// this is the terminal side's termios).
func (tm *ptyTerm) termios() (*unix.Termios, error) {
	return unix.IoctlGetTermios(int(tm.master.Fd()), unix.TCGETS)
}

// dumpScreen frames a screen for failure messages.
func dumpScreen(s string) string {
	lines := strings.Split(s, "\n")
	var b strings.Builder
	for i, l := range lines {
		fmt.Fprintf(&b, "%2d|%s\n", i+1, l)
	}
	return b.String()
}

// screenRows splits a screen into its rows.
func screenRows(s string) []string { return strings.Split(s, "\n") }

// unwrapped joins the screen's rows (each trimmed) with single spaces, so a
// sentence that the app wrapped over several rows can be searched for.
func unwrapped(s string) string {
	rows := screenRows(s)
	for i, r := range rows {
		rows[i] = strings.TrimSpace(r)
	}
	return strings.Join(strings.Fields(strings.Join(rows, " ")), " ")
}

// ---------------------------------------------------------------------------
// the emulator

// vtCell is one cell. A wide character fills its first cell; the next cell
// has cont set. An empty s is a blank.
type vtCell struct {
	s    string
	cont bool
}

// vtBuf is one screen buffer (main or alternate).
type vtBuf struct {
	cells       [][]vtCell
	x, y        int
	wrapNext    bool // the last column was written: the next glyph wraps first
	savedX      int
	savedY      int
	top, bottom int // scrolling region, inclusive rows
}

// vtScreen is a small, honest terminal emulator for what Bubble Tea v1 and
// friends emit: printable text (grapheme clusters, wide characters, deferred
// autowrap), C0 controls (CR, LF, BS, HT), ESC 7/8/D/E/M/c, CSI cursor
// movement (CUU/CUD/CUF/CUB/CNL/CPL/CHA/VPA/CUP/HVP), erasing (ED, EL, ECH),
// editing (IL, DL, ICH, DCH, SU, SD), DECSTBM, save/restore cursor, DEC
// private modes (?1049/?1047/?47 alternate screen, ?25 cursor, ?7 autowrap,
// and the mouse, paste, focus and synchronized-output modes, recorded;
// DECRQM answered for ?2026), and OSC (titles kept,
// colour queries answered). SGR is parsed and ignored: assertions are about
// text. Other sequences are consumed and ignored.
type vtScreen struct {
	rows, cols int
	main, alt  *vtBuf
	cur        *vtBuf
	altActive  bool
	cursorOn   bool
	autowrap   bool
	modes      map[int]bool // DEC private modes set with CSI ? n h / l
	title      string
	queries    map[string]int // terminal queries answered, by kind

	st      int
	params  []byte
	inter   []byte
	str     []byte
	text    []byte // printable bytes not yet placed
	replies []byte
}

// parser states
const (
	stGround = iota
	stEsc
	stEscInter
	stCSI
	stOSC
	stOSCEsc
	stStr // DCS, APC, PM, SOS: consumed until ST
	stStrEsc
)

func newVTScreen(rows, cols int) *vtScreen {
	v := &vtScreen{
		rows: rows, cols: cols, cursorOn: true, autowrap: true,
		modes: map[int]bool{}, queries: map[string]int{},
	}
	v.main, v.alt = v.newBuf(), v.newBuf()
	v.cur = v.main
	return v
}

func (v *vtScreen) newBuf() *vtBuf {
	b := &vtBuf{cells: make([][]vtCell, v.rows), top: 0, bottom: v.rows - 1}
	for i := range b.cells {
		b.cells[i] = make([]vtCell, v.cols)
	}
	return b
}

// vtState is the emulator's view of the terminal modes.
type vtState struct {
	AltScreen     bool
	CursorVisible bool
	Modes         map[int]bool
	Title         string
	Queries       map[string]int
}

func (v *vtScreen) state() vtState {
	m := map[int]bool{}
	for k, on := range v.modes {
		m[k] = on
	}
	q := map[string]int{}
	for k, n := range v.queries {
		q[k] = n
	}
	return vtState{AltScreen: v.altActive, CursorVisible: v.cursorOn, Modes: m, Title: v.title, Queries: q}
}

// String returns the visible screen, rows joined by "\n", trailing spaces
// trimmed.
func (v *vtScreen) String() string {
	out := make([]byte, 0, v.rows*(v.cols+1))
	for y, row := range v.cur.cells {
		if y > 0 {
			out = append(out, '\n')
		}
		start := len(out)
		end := start // just past the last non-blank
		for _, c := range row {
			switch {
			case c.cont:
			case c.s == "":
				out = append(out, ' ')
			default:
				out = append(out, c.s...)
				if c.s != " " {
					end = len(out)
				}
			}
		}
		out = out[:end]
	}
	return string(out)
}

// feed interprets output and returns the replies to send back.
func (v *vtScreen) feed(p []byte) []byte {
	v.replies = v.replies[:0]
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch v.st {
		case stGround:
			switch {
			case c == 0x1b:
				v.flushText()
				v.st = stEsc
			case c < 0x20 || c == 0x7f:
				v.flushText()
				v.control(c)
			default:
				v.text = append(v.text, c)
			}
		case stEsc:
			v.escape(c)
		case stEscInter:
			// ESC ( B and the like: one more byte (more intermediates allowed)
			if c < 0x20 || c > 0x2f {
				v.st = stGround
			}
		case stCSI:
			switch {
			case c >= 0x30 && c <= 0x3f:
				v.params = append(v.params, c)
			case c >= 0x20 && c <= 0x2f:
				v.inter = append(v.inter, c)
			case c >= 0x40 && c <= 0x7e:
				v.st = stGround
				v.csi(c)
			case c == 0x1b:
				v.st = stEsc
			case c < 0x20:
				v.control(c)
			}
		case stOSC:
			switch c {
			case 0x07:
				v.st = stGround
				v.osc()
			case 0x1b:
				v.st = stOSCEsc
			default:
				if len(v.str) < 4096 {
					v.str = append(v.str, c)
				}
			}
		case stOSCEsc:
			v.osc()
			v.st = stEsc
			if c == '\\' {
				v.st = stGround
			} else {
				v.escape(c)
			}
		case stStr:
			if c == 0x1b {
				v.st = stStrEsc
			}
		case stStrEsc:
			v.st = stEsc
			if c == '\\' {
				v.st = stGround
			} else {
				v.escape(c)
			}
		}
	}
	v.flushText()
	return v.replies
}

func (v *vtScreen) escape(c byte) {
	v.st = stGround
	b := v.cur
	switch c {
	case '[':
		v.st, v.params, v.inter = stCSI, v.params[:0], v.inter[:0]
	case ']':
		v.st, v.str = stOSC, v.str[:0]
	case 'P', 'X', '^', '_':
		v.st = stStr
	case '(', ')', '*', '+', '-', '.', '/', '#', '%', ' ':
		v.st = stEscInter
	case '7':
		b.savedX, b.savedY = b.x, b.y
	case '8':
		b.x, b.y, b.wrapNext = b.savedX, b.savedY, false
	case 'D':
		v.lineFeed()
	case 'E':
		b.x = 0
		v.lineFeed()
	case 'M':
		b.wrapNext = false
		if b.y == b.top {
			v.scrollDown(1)
		} else if b.y > 0 {
			b.y--
		}
	case 'c':
		*v = *newVTScreen(v.rows, v.cols)
	case 0x1b:
		v.st = stEsc
	}
}

func (v *vtScreen) control(c byte) {
	b := v.cur
	switch c {
	case '\r':
		b.x, b.wrapNext = 0, false
	case '\n', '\v', '\f':
		v.lineFeed()
	case '\b':
		if b.x > 0 {
			b.x--
		}
		b.wrapNext = false
	case '\t':
		b.x = min((b.x/8+1)*8, v.cols-1)
		b.wrapNext = false
	}
}

func (v *vtScreen) lineFeed() {
	b := v.cur
	b.wrapNext = false
	if b.y == b.bottom {
		v.scrollUp(1)
	} else if b.y < v.rows-1 {
		b.y++
	}
}

func (v *vtScreen) blankRow() []vtCell { return make([]vtCell, v.cols) }

// scrollUp moves the scrolling region's rows up by n.
func (v *vtScreen) scrollUp(n int) {
	b := v.cur
	for range min(n, b.bottom-b.top+1) {
		copy(b.cells[b.top:b.bottom], b.cells[b.top+1:b.bottom+1])
		b.cells[b.bottom] = v.blankRow()
	}
}

// scrollDown moves the scrolling region's rows down by n.
func (v *vtScreen) scrollDown(n int) {
	b := v.cur
	for range min(n, b.bottom-b.top+1) {
		copy(b.cells[b.top+1:b.bottom+1], b.cells[b.top:b.bottom])
		b.cells[b.top] = v.blankRow()
	}
}

// flushText places the pending printable text, one grapheme cluster at a
// time, measured as lipgloss/Bubble Tea measure it. An incomplete UTF-8
// sequence at the end waits for the next read.
func (v *vtScreen) flushText() {
	t := v.text
	keep := 0
	for i := len(t) - 1; i >= 0 && i >= len(t)-utf8.UTFMax; i-- {
		if utf8.RuneStart(t[i]) {
			if !utf8.FullRune(t[i:]) {
				keep = len(t) - i
			}
			break
		}
	}
	t = t[:len(t)-keep]
	for len(t) > 0 {
		g, w := ansi.FirstGraphemeCluster(t, ansi.GraphemeWidth)
		if len(g) == 0 {
			g, w = t[:1], 1
		}
		v.put(string(g), w)
		t = t[len(g):]
	}
	n := copy(v.text, v.text[len(v.text)-keep:])
	v.text = v.text[:n]
}

// put writes one glyph of width w at the cursor.
func (v *vtScreen) put(g string, w int) {
	b := v.cur
	if w == 0 {
		// a lone combining mark: add it to the previous cell
		x := b.x - 1
		if b.wrapNext {
			x = b.x
		}
		if x >= 0 {
			for x > 0 && b.cells[b.y][x].cont {
				x--
			}
			b.cells[b.y][x].s += g
		}
		return
	}
	if b.wrapNext || (w == 2 && b.x == v.cols-1) {
		if v.autowrap {
			b.x = 0
			v.lineFeed()
		} else if w == 2 {
			b.x = v.cols - 2
		}
		b.wrapNext = false
	}
	row := b.cells[b.y]
	v.clearCell(row, b.x)
	row[b.x] = vtCell{s: g}
	if w == 2 && b.x+1 < v.cols {
		v.clearCell(row, b.x+1)
		row[b.x+1] = vtCell{cont: true}
	}
	if b.x+w >= v.cols {
		b.x = v.cols - 1
		b.wrapNext = true
	} else {
		b.x += w
	}
}

// clearCell blanks cell x, and the other half of a wide glyph it cuts.
func (v *vtScreen) clearCell(row []vtCell, x int) {
	if row[x].cont && x > 0 {
		row[x-1] = vtCell{}
	}
	if x+1 < len(row) && row[x+1].cont {
		row[x+1] = vtCell{}
	}
	row[x] = vtCell{}
}

func (v *vtScreen) erase(y, x0, x1 int) {
	row := v.cur.cells[y]
	x0, x1 = max(x0, 0), min(x1, v.cols)
	for x := x0; x < x1; x++ {
		v.clearCell(row, x)
	}
}

// csiParams parses "1;2:3;;4" as [1 2 0 4] (sub-parameters dropped).
func (v *vtScreen) csiParams() []int {
	var out []int
	if len(v.params) == 0 {
		return out
	}
	s := string(v.params)
	if s[0] >= '<' && s[0] <= '?' {
		s = s[1:]
	}
	for _, f := range strings.Split(s, ";") {
		f, _, _ = strings.Cut(f, ":")
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

func (v *vtScreen) csi(final byte) {
	b := v.cur
	var prefix byte
	if len(v.params) > 0 && v.params[0] >= '<' && v.params[0] <= '?' {
		prefix = v.params[0]
	}
	ps := v.csiParams()
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] != 0 {
			return ps[i]
		}
		return def
	}
	clampY := func(y int) int { return max(0, min(y, v.rows-1)) }
	clampX := func(x int) int { return max(0, min(x, v.cols-1)) }
	if len(v.inter) > 0 {
		if prefix == '?' && string(v.inter) == "$" && final == 'p' {
			v.decrqm(ps)
		}
		return // DECSCUSR (CSI n SP q) and other intermediates: no effect on text
	}
	if prefix == '?' {
		switch final {
		case 'h', 'l':
			for _, m := range ps {
				v.setMode(m, final == 'h')
			}
		}
		return
	}
	if prefix != 0 {
		if prefix == '>' && final == 'c' {
			v.queries["DA2"]++
			v.replies = append(v.replies, "\x1b[>0;0;0c"...)
		}
		return
	}
	switch final {
	case 'A':
		floor := 0
		if b.y >= b.top {
			floor = b.top
		}
		b.y, b.wrapNext = max(b.y-arg(0, 1), floor), false
	case 'B', 'e':
		ceil := v.rows - 1
		if b.y <= b.bottom {
			ceil = b.bottom
		}
		b.y, b.wrapNext = min(b.y+arg(0, 1), ceil), false
	case 'C', 'a':
		b.x, b.wrapNext = clampX(b.x+arg(0, 1)), false
	case 'D':
		b.x, b.wrapNext = clampX(b.x-arg(0, 1)), false
	case 'E':
		b.x, b.y, b.wrapNext = 0, clampY(b.y+arg(0, 1)), false
	case 'F':
		b.x, b.y, b.wrapNext = 0, clampY(b.y-arg(0, 1)), false
	case 'G', '`':
		b.x, b.wrapNext = clampX(arg(0, 1)-1), false
	case 'I': // CHT: forward n tab stops (every 8 columns)
		b.x, b.wrapNext = clampX((b.x/8+arg(0, 1))*8), false
	case 'Z': // CBT: back n tab stops
		b.x, b.wrapNext = max(((b.x+7)/8-arg(0, 1))*8, 0), false
	case 'd':
		b.y, b.wrapNext = clampY(arg(0, 1)-1), false
	case 'H', 'f':
		b.y, b.x, b.wrapNext = clampY(arg(0, 1)-1), clampX(arg(1, 1)-1), false
	case 'J':
		switch arg(0, 0) {
		case 0:
			v.erase(b.y, b.x, v.cols)
			for y := b.y + 1; y < v.rows; y++ {
				v.erase(y, 0, v.cols)
			}
		case 1:
			for y := 0; y < b.y; y++ {
				v.erase(y, 0, v.cols)
			}
			v.erase(b.y, 0, b.x+1)
		case 2, 3:
			for y := 0; y < v.rows; y++ {
				v.erase(y, 0, v.cols)
			}
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			v.erase(b.y, b.x, v.cols)
		case 1:
			v.erase(b.y, 0, b.x+1)
		case 2:
			v.erase(b.y, 0, v.cols)
		}
	case 'X':
		v.erase(b.y, b.x, b.x+arg(0, 1))
	case 'L', 'M':
		if b.y < b.top || b.y > b.bottom {
			return
		}
		top := b.top
		b.top = b.y
		if final == 'L' {
			v.scrollDown(arg(0, 1))
		} else {
			v.scrollUp(arg(0, 1))
		}
		b.top, b.x, b.wrapNext = top, 0, false
	case '@':
		row := b.cells[b.y]
		n := min(arg(0, 1), v.cols-b.x)
		copy(row[b.x+n:], row[b.x:v.cols-n])
		for x := b.x; x < b.x+n; x++ {
			row[x] = vtCell{}
		}
		b.wrapNext = false
	case 'P':
		row := b.cells[b.y]
		n := min(arg(0, 1), v.cols-b.x)
		copy(row[b.x:], row[b.x+n:])
		for x := v.cols - n; x < v.cols; x++ {
			row[x] = vtCell{}
		}
		b.wrapNext = false
	case 'S':
		v.scrollUp(arg(0, 1))
	case 'T':
		v.scrollDown(arg(0, 1))
	case 'r':
		top, bottom := arg(0, 1)-1, arg(1, v.rows)-1
		if top < bottom && bottom < v.rows {
			b.top, b.bottom = top, bottom
			b.x, b.y, b.wrapNext = 0, 0, false
		}
	case 's':
		b.savedX, b.savedY = b.x, b.y
	case 'u':
		b.x, b.y, b.wrapNext = b.savedX, b.savedY, false
	case 'n':
		switch arg(0, 0) {
		case 5:
			v.queries["DSR status"]++
			v.replies = append(v.replies, "\x1b[0n"...)
		case 6:
			v.queries["DSR cursor"]++
			v.replies = fmt.Appendf(v.replies, "\x1b[%d;%dR", b.y+1, b.x+1)
		}
	case 'c':
		v.queries["DA1"]++
		v.replies = append(v.replies, "\x1b[?62;22c"...)
	case 'm':
		// SGR: colours and attributes are not modelled
	}
}

// decrqm answers DECRQM (CSI ? n $ p) as a terminal with synchronized
// output does: mode 2026 is known (2: reset), any other mode is not (0).
func (v *vtScreen) decrqm(ps []int) {
	if len(ps) == 0 {
		return
	}
	v.queries["DECRQM"]++
	state := 0
	if ps[0] == 2026 {
		state = 1
		if !v.modes[2026] {
			state = 2
		}
	}
	v.replies = fmt.Appendf(v.replies, "\x1b[?%d;%d$y", ps[0], state)
}

func (v *vtScreen) setMode(m int, on bool) {
	v.modes[m] = on
	switch m {
	case 25:
		v.cursorOn = on
	case 7:
		v.autowrap = on
	case 47, 1047, 1049:
		if on == v.altActive {
			return
		}
		if on {
			if m == 1049 {
				v.main.savedX, v.main.savedY = v.main.x, v.main.y
			}
			v.alt = v.newBuf()
			v.cur, v.altActive = v.alt, true
		} else {
			v.cur, v.altActive = v.main, false
			if m == 1049 {
				v.main.x, v.main.y, v.main.wrapNext = v.main.savedX, v.main.savedY, false
			}
		}
	}
}

// osc handles a complete OSC string: titles are kept and the colour queries
// answered (a dark terminal: black background, light grey foreground).
func (v *vtScreen) osc() {
	s := string(v.str)
	num, rest, _ := strings.Cut(s, ";")
	switch num {
	case "0", "2":
		v.title = rest
	case "10", "11", "12":
		if rest == "?" {
			v.queries["OSC "+num]++
			color := "0000/0000/0000"
			if num != "11" {
				color = "c0c0/c0c0/c0c0"
			}
			v.replies = append(v.replies, "\x1b]"+num+";rgb:"+color+"\x1b\\"...)
		}
	}
}

// TestE2EEmulator checks the emulator on the behaviours the end-to-end tests
// rely on. (It was also checked against github.com/charmbracelet/x/vt on the
// complete output of the end-to-end tests and the workload: identical
// screens after every read.)
func TestE2EEmulator(t *testing.T) {
	feed := func(v *vtScreen, parts ...string) string {
		var replies []byte
		for _, p := range parts {
			replies = append(replies, v.feed([]byte(p))...)
		}
		return string(replies)
	}
	cases := []struct {
		name       string
		rows, cols int
		in         []string
		want       string
	}{
		{"deferred wrap then CRLF", 3, 5, []string{"abcde\r\nx"}, "abcde\nx\n"},
		{"autowrap", 3, 5, []string{"abcdef"}, "abcde\nf\n"},
		{"wide glyph at the last column wraps", 3, 5, []string{"abcd世"}, "abcd\n世\n"},
		{"CUP, EL", 3, 6, []string{"\x1b[2;3Hxy\x1b[1;1Hhello\x1b[1;3H\x1b[K"}, "he\n  xy\n"},
		{"ED below, home", 3, 4, []string{"aaaa\r\nbbbb\r\ncccc\x1b[2;2H\x1b[J\x1b[Hz"}, "zaaa\nb\n"},
		{"scrolls at the bottom", 3, 4, []string{"1\r\n2\r\n3\r\n4"}, "2\n3\n4"},
		{"SGR ignored", 1, 10, []string{"\x1b[1;38;5;200mred\x1b[0m \x1b[38:2::1:2:3mx"}, "red x"},
		{"sequences and UTF-8 split across reads", 1, 10, []string{"\x1b[", "1;3", "H\xc3", "\xa9\x1b", "]0;title\x1b", "\\!"}, "  é!"},
		{"alt screen", 2, 6, []string{"main\x1b[?1049h\x1b[Halt"}, "alt\n"},
		{"alt screen left", 2, 6, []string{"main\x1b[?1049h\x1b[Halt\x1b[?1049l"}, "main\n"},
		{"CUU, CR, erase line right", 3, 6, []string{"one\r\ntwo\r\nthree\x1b[2A\r\x1b[Kx"}, "x\ntwo\nthree"},
	}
	for _, c := range cases {
		v := newVTScreen(c.rows, c.cols)
		feed(v, c.in...)
		if got := v.String(); got != c.want {
			t.Errorf("%s: screen %q, want %q", c.name, got, c.want)
		}
	}

	v := newVTScreen(24, 80)
	got := feed(v, "\x1b]11;?\x1b\\", "\x1b[6n")
	if want := "\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[1;1R"; got != want {
		t.Errorf("replies %q, want %q", got, want)
	}
	got = feed(v, "\x1b]1", "1;?\a\x1b[3;4H\x1b[", "6n")
	if want := "\x1b]11;rgb:0000/0000/0000\x1b\\\x1b[3;4R"; got != want {
		t.Errorf("split queries: replies %q, want %q", got, want)
	}
	feed(v, "\x1b[?25l\x1b[?1002h\x1b[?1006h\x1b[?2004h")
	if st := v.state(); st.CursorVisible || !st.Modes[1002] || !st.Modes[1006] || !st.Modes[2004] {
		t.Errorf("modes after setting: %+v", st)
	}
	feed(v, "\x1b[?25h\x1b[?1002l\x1b[?1006l\x1b[?2004l")
	if st := v.state(); !st.CursorVisible || st.Modes[1002] || st.Modes[1006] || st.Modes[2004] {
		t.Errorf("modes after resetting: %+v", st)
	}
}
