package main

// The official MCP conformance suite's server scenarios (npm
// @modelcontextprotocol/conformance) against the built latch serve
// --listen. `make conformance` runs them (LATCH_CONFORMANCE=1).

import (
	"bytes"
	"context"
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

// serverScenarios are the conformance suite's server scenarios that test
// what a gateway's transport does, whatever tools it serves. The others
// need the suite's own fixture tools, prompts or resources by their exact
// names (test_simple_text, json_schema_2020_12_tool, test_prompt…), which
// a gateway serving other servers' tools as server__tool does not have
// (docs/GATEWAY.md lists them and why).
var serverScenarios = []string{
	"server-initialize",
	"ping",
	"tools-list",
	"server-sse-multiple-streams",
	"dns-rebinding-protection",
}

// tokenProxy serves on ln, passing every request to target with the
// bearer token added: only Authorization is set; Host, Origin and every
// other header pass through as the client sent them. (The suite cannot
// send a token, and latch serve refuses a request without one.)
func tokenProxy(t *testing.T, ln net.Listener, target *url.URL, token string) {
	t.Helper()
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
			r.Out.Header.Set("Authorization", "Bearer "+token)
		},
		FlushInterval: -1, // event streams as they come
	}
	hs := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
}

// proxiedServe starts latch serve --listen and the token proxy in front of
// it, and returns the proxy's URL. The proxy listens on the same port as
// latch, on another loopback address, so that the Host and Origin a client
// sends the proxy name latch's listen address too (latch accepts each
// loopback name of its port): latch on 127.0.0.1 and the proxy on [::1]
// or, where there is no IPv6 loopback, latch on 127.0.0.2 and the proxy
// on 127.0.0.1.
func proxiedServe(t *testing.T, r *promptRig, token string) string {
	t.Helper()
	latchHost, proxyHost := "127.0.0.1", "[::1]"
	if ln, err := net.Listen("tcp", "[::1]:0"); err != nil {
		latchHost, proxyHost = "127.0.0.2", "127.0.0.1"
	} else {
		_ = ln.Close()
	}
	// The last --listen given is the one taken.
	srv := startServeHTTP(t, r, token, "--listen", latchHost+":0")
	target, err := url.Parse(srv.url)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(strings.Trim(proxyHost, "[]"), target.Port()))
	if err != nil {
		t.Fatalf("the token proxy cannot listen beside latch serve: %v", err)
	}
	tokenProxy(t, ln, &url.URL{Scheme: target.Scheme, Host: target.Host}, token)
	return "http://" + proxyHost + ":" + target.Port() + "/mcp"
}

func TestServeConformance(t *testing.T) {
	if os.Getenv("LATCH_CONFORMANCE") == "" {
		t.Skip("the conformance suite's server scenarios run with make conformance (LATCH_CONFORMANCE=1)")
	}
	mcptestutil.NPMPackage(t, "@modelcontextprotocol/conformance")
	const token = "conformance-token-for-the-test"
	r := newPromptRig(t, nil, true)
	u := proxiedServe(t, r, token)
	root := mcptestutil.ModuleRoot(t)
	npm := filepath.Join(root, "testdata", "npm")
	for _, scenario := range serverScenarios {
		t.Run(scenario, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, filepath.Join(npm, "node_modules", ".bin", "conformance"), "server",
				"--url", u, "--scenario", scenario,
				"--expected-failures", filepath.Join(root, "testdata", "conformance", "server-expected-failures.yaml"))
			cmd.Dir, cmd.WaitDelay = npm, 5*time.Second
			cmd.Env = append(os.Environ(), "NODE_OPTIONS="+os.Getenv("NODE_OPTIONS")+" --import "+
				filepath.Join(root, "testdata", "conformance", "node20-fs-globsync.mjs"))
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			t.Logf("conformance server --scenario %s:\n%s", scenario, out.String())
			if err != nil {
				t.Errorf("scenario %s failed: %v", scenario, err)
			}
		})
	}
}
