package cli

// The official MCP conformance suite's server scenarios (npm
// @modelcontextprotocol/conformance 0.1.16, and its pre-release
// 0.2.0-alpha.12 pinned as conformance-next for the 2026-07-28 stateless
// form) against the built latch serve --listen. `make conformance` runs
// them (LATCH_CONFORMANCE=1).

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
)

// conformanceRun is one scenario of one suite at one protocol version.
type conformanceRun struct {
	suite    string // the package under testdata/npm/node_modules
	scenario string
	version  string // --spec-version; "" for the suite's default
}

// serverScenarios are the suites' server scenarios that test what a
// gateway's transport does, whatever tools it serves. The others need the
// suite's own fixture tools, prompts or resources by their exact names
// (test_simple_text, json_schema_2020_12_tool, test_prompt…), which a
// gateway serving other servers' tools as server__tool does not have, or
// capabilities a gateway does not offer (logging, prompts, resources,
// completion); docs/GATEWAY.md lists them and why.
var serverScenarios = []conformanceRun{
	{"@modelcontextprotocol/conformance", "server-initialize", ""},
	{"@modelcontextprotocol/conformance", "ping", ""},
	{"@modelcontextprotocol/conformance", "tools-list", ""},
	{"@modelcontextprotocol/conformance", "server-sse-multiple-streams", ""},
	{"@modelcontextprotocol/conformance", "dns-rebinding-protection", ""},
	{"conformance-next", "server-session-lifecycle", "2025-11-25"},
	{"conformance-next", "server-stateless", "2026-07-28"},
	{"conformance-next", "http-header-validation", "2026-07-28"},
	{"conformance-next", "tools-list", "2026-07-28"},
	{"conformance-next", "server-sse-multiple-streams", "2026-07-28"},
	{"conformance-next", "dns-rebinding-protection", "2026-07-28"},
}

// tokenProxy serves on ln, passing every request to target with the
// bearer token added: only Authorization is set; Host, Origin and every
// other header pass through as the client sent them. (The suite cannot
// send a token, and latch serve refuses a request without one.)
//
// It reads each request's body whole before passing it on. Streamed as
// httputil.ReverseProxy streams it, a body of known length went out in
// full, then the transport read the client's body once more to see its
// end; an answer that came back before that read (latch answers as soon
// as it has the body) was flushed to the client, and Go's HTTP/1 server
// closes the request body once the answer starts: the late read failed
// ("invalid Read on closed Body"), the transport closed its connection
// to latch, and the answer was cut short with no error the suite's raw
// requests see. A scenario then waited out its 30 s (on a busy machine,
// where the transport's goroutine waits longer between the two). See
// proxyLog for what the log shows of each request.
func tokenProxy(t *testing.T, ln net.Listener, target *url.URL, token string) {
	t.Helper()
	hs := &http.Server{Handler: proxyLog(t, tokenProxyHandler(t, target, token, nil)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
}

// tokenProxyHandler is tokenProxy's handler; inner, when set, wraps the
// reverse proxy, after the body was read (a test's hook).
func tokenProxyHandler(t *testing.T, target *url.URL, token string, inner func(http.Handler) http.Handler) http.Handler {
	var rp http.Handler = &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1, // event streams as they come
		ErrorLog:      log.New(tlogWriter{t}, "token proxy: ", log.Lmicroseconds),
	}
	if inner != nil {
		rp = inner(rp)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, "the token proxy could not read the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		rp.ServeHTTP(w, r)
	})
}

// proxiedServe starts latch serve --listen and the token proxy in front of
// it, and returns the proxy's URL. The proxy listens on the same port as
// latch, on another loopback address, so that the Host and Origin a client
// sends the proxy name latch's listen address too (latch accepts each
// loopback name of its port): latch on 127.0.0.2 and the proxy on
// 127.0.0.1 (Linux), or where 127.0.0.2 is not there, latch on 127.0.0.1
// and the proxy on [::1] (the pre-release suite cannot send its
// header-validation requests to an IPv6 literal).
func proxiedServe(t *testing.T, r *promptRig, token string) string {
	t.Helper()
	latchHost, proxyHost := "127.0.0.2", "127.0.0.1"
	if ln, err := net.Listen("tcp", "127.0.0.2:0"); err != nil {
		latchHost, proxyHost = "127.0.0.1", "::1"
	} else {
		_ = ln.Close()
	}
	// The last --listen given is the one taken.
	srv := startServeHTTP(t, r, token, "--listen", latchHost+":0")
	target, err := url.Parse(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(proxyHost, target.Port()))
	if err != nil {
		t.Fatalf("the token proxy cannot listen beside latch serve: %v", err)
	}
	tokenProxy(t, ln, &url.URL{Scheme: target.Scheme, Host: target.Host}, token)
	return "http://" + net.JoinHostPort(proxyHost, target.Port()) + "/mcp"
}

func TestServeConformance(t *testing.T) {
	if os.Getenv("LATCH_CONFORMANCE") == "" {
		t.Skip("the conformance suite's server scenarios run with make conformance (LATCH_CONFORMANCE=1)")
	}
	mcptestutil.NPMPackage(t, "@modelcontextprotocol/conformance")
	mcptestutil.NPMPackage(t, "conformance-next")
	const token = "conformance-token-for-the-test"
	r := newPromptRig(t, nil, true)
	u := proxiedServe(t, r, token)
	root := mcptestutil.ModuleRoot(t)
	npm := filepath.Join(root, "testdata", "npm")
	// LATCH_CONFORMANCE_ONLY=stateless runs only the scenarios whose
	// name@version holds it (to run one again and again).
	runs := serverScenarios
	if os.Getenv("LATCH_CONFORMANCE_ONLY") != "" {
		runs = nil
		for _, r := range serverScenarios {
			if strings.Contains(r.scenario+"@"+r.version, os.Getenv("LATCH_CONFORMANCE_ONLY")) {
				runs = append(runs, r)
			}
		}
	}
	for _, run := range runs {
		name := run.suite + "/" + run.scenario
		if run.version != "" {
			name += "@" + run.version
		}
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			args := []string{filepath.Join(npm, "node_modules", run.suite, "dist", "index.js"), "server",
				"--url", u, "--scenario", run.scenario, "-o", out}
			failures := "server-expected-failures.yaml"
			if run.version != "" {
				args = append(args, "--spec-version", run.version)
				failures = "server-expected-failures-" + run.version + ".yaml"
			}
			args = append(args, "--expected-failures", filepath.Join(root, "testdata", "conformance", failures))
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", args...)
			cmd.Dir, cmd.WaitDelay = npm, 5*time.Second
			cmd.Env = append(os.Environ(), "NODE_OPTIONS="+os.Getenv("NODE_OPTIONS")+" --import "+
				filepath.Join(root, "testdata", "conformance", "node20-fs-globsync.mjs"))
			var b bytes.Buffer
			cmd.Stdout, cmd.Stderr = &b, &b
			err := cmd.Run()
			t.Logf("conformance server --scenario %s:\n%s", run.scenario, b.String())
			if err != nil {
				t.Errorf("scenario %s failed: %v", run.scenario, err)
			}
			checkConformanceChecks(t, out)
		})
	}
}

// checkConformanceChecks fails unless the suite wrote under dir (its -o)
// at least one check that passed: a scenario that finds nothing to test
// passes without checking anything.
func checkConformanceChecks(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "checks.json"))
	passed := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var checks []struct {
			ID, Status, ErrorMessage string
			Details                  json.RawMessage
		}
		if err := json.Unmarshal(b, &checks); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, c := range checks {
			switch c.Status {
			case "SUCCESS":
				passed++
			case "FAILURE":
				// What the suite saw, for a failure only a busy machine shows.
				d := string(c.Details)
				if len(d) > 2000 {
					d = d[:2000] + "…"
				}
				t.Logf("%s failed: %s\n\tdetails: %s", c.ID, c.ErrorMessage, d)
			}
		}
	}
	if passed == 0 {
		t.Errorf("the scenario passed no check (checks.json under %s: %d files)", dir, len(files))
	}
}
