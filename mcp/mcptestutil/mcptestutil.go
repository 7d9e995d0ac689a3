// Package mcptestutil helps tests run MCP servers as real subprocesses: the
// fake stdio server in testdata/fakemcp (built once per test binary) and the
// pinned npm servers in testdata/npm (installed by `make test`, which runs
// `npm ci` there).
//
// Only tests import it. The npm helpers skip the test, loudly, when Node.js or
// the npm servers are missing, except under CI=true, where they fail it.
package mcptestutil

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ModuleRoot returns the directory of the enclosing go.mod, found by walking
// up from the working directory (a package's directory under `go test`).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	root, err := moduleRoot()
	if err != nil {
		t.Fatalf("mcptestutil: %v", err)
	}
	return root
}

func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

var (
	fakeOnce sync.Once
	fakePath string
	fakeErr  error
)

// fakeDirPrefix names the temp dirs BuildFakeMCP builds into.
const fakeDirPrefix = "latch-fakemcp-"

// BuildFakeMCP builds testdata/fakemcp (see its doc comment for the tools and
// the flags) once per test binary and returns the path of the executable.
//
// The binary goes into a fresh os.MkdirTemp directory that outlives the
// test that first asked for it, so every test of the package shares it; it is
// not removed when the binary exits, but each build removes such directories
// left over from runs more than a day old. A failed build fails every test
// that calls BuildFakeMCP, with the compiler's output.
func BuildFakeMCP(t testing.TB) string {
	t.Helper()
	fakeOnce.Do(func() { fakePath, fakeErr = buildFakeMCP() })
	if fakeErr != nil {
		t.Fatalf("mcptestutil: build testdata/fakemcp: %v", fakeErr)
	}
	return fakePath
}

func buildFakeMCP() (string, error) {
	root, err := moduleRoot()
	if err != nil {
		return "", err
	}
	removeStaleFakeDirs()
	dir, err := os.MkdirTemp("", fakeDirPrefix)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "fakemcp")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/fakemcp")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	return bin, nil
}

// removeStaleFakeDirs removes build directories of earlier test binaries that
// are at least a day old (no test run lasts that long).
func removeStaleFakeDirs() {
	entries, err := os.ReadDir(os.TempDir())
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), fakeDirPrefix) {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > 24*time.Hour {
			_ = os.RemoveAll(filepath.Join(os.TempDir(), e.Name()))
		}
	}
}

// NPMBin returns the path of testdata/npm/node_modules/.bin/<name>, e.g.
// NPMBin(t, "mcp-server-everything"), after checking that `node` is on PATH.
//
// When either is missing it skips the test with a message starting with
// "SKIPPING:" that says how to install them, or, when the environment has
// CI=true, fails it: CI must run the npm tests, and `make test` installs
// the servers with `npm ci`.
func NPMBin(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		missingNPM(t, "node is not on PATH (the npm test servers need Node.js 20 or later)")
	}
	root := ModuleRoot(t)
	bin := filepath.Join(root, "testdata", "npm", "node_modules", ".bin", name)
	if _, err := os.Stat(bin); err != nil {
		missingNPM(t, fmt.Sprintf("npm test servers not installed (%s is missing)", bin))
	}
	return bin
}

// NPMPackage returns the folder of testdata/npm/node_modules/<name>, e.g.
// NPMPackage(t, "@modelcontextprotocol/sdk"), skipping or failing the test
// as NPMBin does when node or the package is missing.
func NPMPackage(t testing.TB, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		missingNPM(t, "node is not on PATH (the npm test packages need Node.js 20 or later)")
	}
	dir := filepath.Join(ModuleRoot(t), "testdata", "npm", "node_modules", filepath.FromSlash(name))
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		missingNPM(t, fmt.Sprintf("npm test package %s not installed (%s is missing)", name, dir))
	}
	return dir
}

func missingNPM(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s: run `make test`, which runs `npm ci` in testdata/npm", what)
	}
	t.Skipf("SKIPPING: %s; run `make test` or `cd testdata/npm && npm ci`", what)
}

// FreePort returns a TCP port that was free on all interfaces a moment ago.
// Another process may take it before the caller binds it; StartNPMHTTP
// retries on another port when that happens.
func FreePort(t testing.TB) int {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatalf("mcptestutil: free port: %v", err)
	}
	return port
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", ":0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }() // only its port was wanted
	return l.Addr().(*net.TCPAddr).Port, nil
}

// WaitHTTP polls url with GET every 50 ms until any HTTP response (of any
// status) arrives, and fails the test if none has within timeout. It reads
// no body, so it also works on an endless event stream such as /sse.
func WaitHTTP(t testing.TB, url string, timeout time.Duration) {
	t.Helper()
	if err := waitHTTP(url, timeout, nil); err != nil {
		t.Fatalf("mcptestutil: %v", err)
	}
}

// waitHTTP is WaitHTTP returning an error; it gives up early when exited is
// closed.
func waitHTTP(url string, timeout time.Duration, exited <-chan struct{}) error {
	c := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	var lastErr error
	for {
		resp, err := c.Get(url)
		if err == nil {
			_ = resp.Body.Close() // only the status mattered
			return nil
		}
		lastErr = err
		if time.Now().After(deadline) {
			return fmt.Errorf("nothing answered on %s within %v: %v", url, timeout, lastErr)
		}
		select {
		case <-exited:
			return fmt.Errorf("the server exited before answering on %s", url)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// StartNPMHTTP runs an npm server-everything in one of its HTTP modes, mode
// being "sse" (legacy SSE: GET /sse, POST /message) or "streamableHttp"
// (POST/GET/DELETE /mcp), on a free port given as PORT, and waits until it
// answers HTTP. It returns the base URL, e.g. "http://127.0.0.1:40123", to
// which callers append "/sse" or "/mcp".
//
// bin is a path from NPMBin or a bin name, which is passed to NPMBin (and so
// skips or fails the test the same way when the servers are missing). The
// server runs in its own process group, which is killed at cleanup; its
// output is logged when the test fails.
func StartNPMHTTP(t testing.TB, bin string, mode string) (baseURL string) {
	t.Helper()
	if mode != "sse" && mode != "streamableHttp" {
		t.Fatalf("mcptestutil: StartNPMHTTP mode %q: want \"sse\" or \"streamableHttp\"", mode)
	}
	if !strings.ContainsRune(bin, filepath.Separator) {
		bin = NPMBin(t, bin)
	}
	var lastErr error
	// A port can be taken between FreePort and the server's bind: try a few.
	for range 3 {
		base, err := startNPMHTTP(t, bin, mode)
		if err == nil {
			return base
		}
		lastErr = err
	}
	t.Fatalf("mcptestutil: %v", lastErr)
	return ""
}

func startNPMHTTP(t testing.TB, bin, mode string) (string, error) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		return "", err
	}
	out := &SyncBuffer{}
	cmd := exec.Command(bin, mode)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = out, out
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("start %s %s: %v", bin, mode, err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	stop := func() {
		killProcessGroup(cmd)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
		}
	}

	base := "http://127.0.0.1:" + strconv.Itoa(port)
	// Any path answers once the server listens (404 on "/"); "/" also avoids
	// opening an event stream in SSE mode.
	if err := waitHTTP(base+"/", 20*time.Second, exited); err != nil {
		stop()
		exit := "still running after SIGKILL"
		select {
		case <-exited:
			exit = fmt.Sprint(waitErr)
		default:
		}
		return "", fmt.Errorf("%s %s on port %d: %v (exit: %s); output:\n%s", bin, mode, port, err, exit, out.String())
	}
	t.Cleanup(func() {
		stop()
		if t.Failed() {
			t.Logf("output of %s %s (PORT=%d):\n%s", filepath.Base(bin), mode, port, out.String())
		}
	})
	return base, nil
}

// ReadPidfile waits up to timeout for the file fakemcp writes with -pidfile
// and returns its pids: fakemcp's own, then, with -grandchild, its child's.
func ReadPidfile(t testing.TB, path string, timeout time.Duration) []int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		data, err := os.ReadFile(path)
		if err == nil {
			var pids []int
			for _, f := range strings.Fields(string(data)) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("mcptestutil: pidfile %s: %v", path, err)
				}
				pids = append(pids, pid)
			}
			return pids
		}
		if !errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			t.Fatalf("mcptestutil: pidfile: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ProcessAlive reports whether the process pid exists and is not a zombie.
// (A killed grandchild whose parent has died may stay a zombie for a while
// when nothing reaps it, so a plain kill(pid, 0) is not enough.)
func ProcessAlive(pid int) bool { return processAlive(pid) }

// WaitProcessGone waits up to timeout for ProcessAlive(pid) to turn false and
// reports whether it did.
func WaitProcessGone(pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for ProcessAlive(pid) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// SyncBuffer is a bytes.Buffer safe for concurrent use: a log one side
// writes while a test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
