package cli

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp/mcptestutil"
)

const (
	ciE2EToken     = "tok-ci-e2e-0123456789"
	internE2EToken = "tok-intern-e2e-0123456789"
	sharedE2EToken = "tok-shared-e2e-0123456789"
)

// clientsConfig is a config in ask mode whose one rule allows
// mem__create_entities to clients named ci-*, with serve.clients naming
// ci-bot (its token in the file ciFile) and, when intern is set, intern
// (its token in $INTERN_TOKEN).
func clientsConfig(ciFile string, intern bool) map[string]any {
	clients := map[string]any{"ci-bot": map[string]any{"token_file": ciFile}}
	if intern {
		clients["intern"] = map[string]any{"token_env": "INTERN_TOKEN"}
	}
	return map[string]any{
		"permissions": map[string]any{"mode": "ask",
			"rules": []any{map[string]any{"tool": "mem__create_entities", "decision": "allow", "client": "ci-*"}}},
		"serve": map[string]any{"clients": clients}}
}

// editServeConfig writes cfg (with the rig's mem server) over the rig's
// config file, as a person editing it would.
func editServeConfig(t *testing.T, r *promptRig, cfg map[string]any) {
	t.Helper()
	b, err := os.ReadFile(r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	var old map[string]any
	if err := json.Unmarshal(b, &old); err != nil {
		t.Fatal(err)
	}
	cfg["mcpServers"] = old["mcpServers"]
	if b, err = json.Marshal(cfg); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.cfg, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// The built latch serve --listen with two clients of their own tokens,
// each an mcp-go client: the rule naming ci-* runs ci-bot's write; intern,
// calling itself "ci-bot", has its write parked, and latch approvals names
// it by its verified name and what it says, and a rule naming intern added
// since is noticed there. Then, with latch serve still
// running, intern is removed from the config and ci-bot's token file is
// given a new token: the old tokens are refused (401) at once, the new one
// taken. A token in the URL is refused (400), never echoed.
func TestServeClientsByTheirOwnTokens(t *testing.T) {
	t.Parallel()
	ciFile := filepath.Join(t.TempDir(), "ci.token")
	if err := os.WriteFile(ciFile, []byte(ciE2EToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newPromptRig(t, clientsConfig(ciFile, true), true, "INTERN_TOKEN="+internE2EToken)
	url := startServeHTTP(t, r, sharedE2EToken).url
	ci := rawServeClientAs(t, url, ciE2EToken, "claude-code")
	intern := rawServeClientAs(t, url, internE2EToken, "ci-bot")
	create := `{"entities": [{"name": "alice", "entityType": "person", "observations": ["likes tea"]}]}`

	if got := callRaw(t, ci, "mem__create_entities", create); !strings.Contains(got, "alice") {
		t.Errorf("ci-bot's write: %q; want it run", got)
	}
	if got := callRaw(t, intern, "mem__create_entities", create); !strings.Contains(got, "latch_await_decision") {
		t.Errorf("intern's write: %q; want it parked", got)
	}
	if n := r.memCalls("create_entities"); n != 1 {
		t.Errorf("server-memory got %d writes; want ci-bot's alone", n)
	}
	list := r.run("", "approvals")
	if !strings.Contains(list.stdout, `intern (says "ci-bot")`) || strings.Contains(list.stdout, "claude-code") {
		t.Errorf("latch approvals:\n%s\nwant intern's call, named so, alone", list.stdout)
	}

	// A rule naming intern, added since its call parked, is the
	// approval list's notice: the call is judged as intern's.
	denyIntern := clientsConfig(ciFile, true)
	perms := denyIntern["permissions"].(map[string]any)
	perms["rules"] = append(perms["rules"].([]any), map[string]any{"tool": "mem__create_entities", "decision": "deny", "client": "intern"})
	editServeConfig(t, r, denyIntern)
	if list := r.run("", "approvals"); !strings.Contains(list.stdout, "a rule now denies this call") {
		t.Errorf("latch approvals after a rule naming intern was added:\n%s\nwant the notice", list.stdout)
	}

	editServeConfig(t, r, clientsConfig(ciFile, false))
	if err := os.WriteFile(ciFile, []byte("tok-ci-e2e-renewed-0123\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, url, token string
		want             int
	}{
		{"intern's removed token", url, internE2EToken, http.StatusUnauthorized},
		{"ci-bot's old token", url, ciE2EToken, http.StatusUnauthorized},
		{"ci-bot's new token", url, "tok-ci-e2e-renewed-0123", http.StatusOK},
		{"the shared token", url, sharedE2EToken, http.StatusOK},
		{"a token in the URL", url + "?access_token=" + sharedE2EToken, "", http.StatusBadRequest},
	} {
		header := map[string]string{}
		if c.token != "" {
			header["Authorization"] = "Bearer " + c.token
		}
		if got := post(t, c.url, header); got != c.want {
			t.Errorf("%s: status %d, want %d", c.name, got, c.want)
		}
	}
}

// latch serve refuses to start when two clients have one token, naming
// both and not the token; --as goes with --stdio alone, and takes a name.
func TestServeClientsRefusals(t *testing.T) {
	t.Parallel()
	r := newPromptRig(t, map[string]any{"serve": map[string]any{"clients": map[string]any{
		"a": map[string]any{"token_env": "A_TOKEN"}, "b": map[string]any{"token_env": "B_TOKEN"}}}}, false,
		"A_TOKEN=same-token-0123456789", "B_TOKEN=same-token-0123456789")
	res := r.run("", "serve", "--listen", "127.0.0.1:0")
	if res.code != exitUsage || !strings.Contains(res.stderr, "serve.clients.b has the same token as serve.clients.a") ||
		strings.Contains(res.stderr, "same-token") {
		t.Errorf("two clients with one token: exit %d, %q", res.code, res.stderr)
	}
	for _, args := range [][]string{{"serve", "--listen", "127.0.0.1:0", "--as", "ci"}, {"serve", "--stdio", "--as", "ci bot"}} {
		if res := r.run("", args...); res.code != exitUsage || !strings.Contains(res.stderr, "--as") {
			t.Errorf("%q: exit %d, %q; want a usage error about --as", args, res.code, res.stderr)
		}
	}
}

// The named clients' tokens are latch's own, as the shared one is: an
// upstream stdio server inheriting the whole environment is given
// neither $INTERN_TOKEN nor any variable holding a client's token, and a
// server that knows them anyway and sends them back (a result, an error)
// shows "[redacted]" to the client.
func TestServeClientTokensHeldFromUpstream(t *testing.T) {
	t.Parallel()
	fake := mcptestutil.BuildFakeMCP(t)
	environ := filepath.Join(t.TempDir(), "environ")
	ciFile := filepath.Join(t.TempDir(), "ci.token")
	if err := os.WriteFile(ciFile, []byte(ciE2EToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := clientsConfig(ciFile, true)
	cfg["mcpServers"] = map[string]any{"fake": map[string]any{"command": fake,
		"args":        []string{"-environ-file", environ, "-fail-with", "upstream knows " + ciE2EToken},
		"env_inherit": true, "allow": []string{"echo", "rpc_fail"}}}
	r := newPromptRig(t, cfg, false, "INTERN_TOKEN="+internE2EToken, "LATCH_TEST_CI_COPY="+ciE2EToken)
	srv := startServeHTTP(t, r, sharedE2EToken)

	b, err := os.ReadFile(environ)
	if err != nil {
		t.Fatalf("the upstream server did not write its environment: %v", err)
	}
	if env := string(b); strings.Contains(env, internE2EToken) || strings.Contains(env, ciE2EToken) || strings.Contains(env, "INTERN_TOKEN=") {
		t.Errorf("the upstream server was given a client's token:\n%s", env)
	}
	c := rawServeClientAs(t, srv.url, internE2EToken, "intern")
	if got := callRaw(t, c, "fake__echo", `{"message": "echo `+internE2EToken+` `+ciE2EToken+`"}`); got != "echo [redacted] [redacted]" {
		t.Errorf("the echoed tokens reached the client as %q", got)
	}
	if got := callRaw(t, c, "fake__rpc_fail", `{}`); strings.Contains(got, ciE2EToken) || !strings.Contains(got, "[redacted]") {
		t.Errorf("the upstream error, as the client got it: %q", got)
	}
}

// The chat's --serve takes serve.clients too: a client of its own token
// calling itself e2e-agent is asked about in the chat's box by its
// verified name, what it says beside it, and y runs its call.
func TestE2EChatServeNamesTheClientByItsToken(t *testing.T) {
	t.Parallel()
	fake := newFake(t)
	addr := fmt.Sprintf("127.0.0.1:%d", mcptestutil.FreePort(t))
	cfg := map[string]any{
		"serve":       map[string]any{"await_poll": "2m", "clients": map[string]any{"ci-bot": map[string]any{"token_env": "CI_TOKEN"}}},
		"permissions": map[string]any{"mode": "ask"},
		"mcpServers":  map[string]any{"fake": map[string]any{"command": mcptestutil.BuildFakeMCP(t)}},
	}
	b, _ := json.Marshal(cfg)
	path := filepath.Join(t.TempDir(), "config.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := startChatServeWith(t, fake.Host(), path, addr, ciE2EToken, []string{"XDG_STATE_HOME=" + t.TempDir(), "CI_TOKEN=" + ciE2EToken})
	res := r.call("fake__add", map[string]any{"a": 2, "b": 3})
	takeBoxWith(t, r.tm, `from    ci-bot (says "e2e-agent") (via latch serve)`, "the box naming the client by its token")
	r.tm.typeKeys("y")
	if got := r.result(res); got != "false 5" {
		t.Errorf("after y the client got %q, want the tool's result 5", got)
	}
}

// A call intern parked, taken up by latch serve after a restart, is
// still intern's: a rule denying intern, added while latch serve was
// down, refuses it when a person approves it (latch approve says so, exit
// 1), and it never runs.
func TestServeRestartJudgesAParkedCallAsItsClients(t *testing.T) {
	t.Parallel()
	ciFile := filepath.Join(t.TempDir(), "ci.token")
	if err := os.WriteFile(ciFile, []byte(ciE2EToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := newPromptRig(t, clientsConfig(ciFile, true), true, "INTERN_TOKEN="+internE2EToken)
	srv := startServeHTTP(t, r, sharedE2EToken)
	intern := rawServeClientAs(t, srv.url, internE2EToken, "intern")
	got := callRaw(t, intern, "mem__create_entities", `{"entities": [{"name": "ann", "entityType": "person", "observations": []}]}`)
	var h handle
	if err := json.Unmarshal([]byte(got), &h); err != nil || h.InvocationID == "" {
		t.Fatalf("intern's write: %q; want it parked", got)
	}
	srv.kill(t)

	denyIntern := clientsConfig(ciFile, true)
	perms := denyIntern["permissions"].(map[string]any)
	perms["rules"] = append(perms["rules"].([]any), map[string]any{"tool": "mem__create_entities", "decision": "deny", "client": "intern"})
	editServeConfig(t, r, denyIntern)
	srv = startServeHTTP(t, r, sharedE2EToken)
	if ok := decideAsPerson(t, r, "approve", h.InvocationID); ok.code != exitError ||
		!strings.Contains(ok.screen, "client intern (says \"intern\")") || !strings.Contains(ok.screen, "approved, but the gateway refused it") {
		t.Errorf("approve: exit %d, %s; want the call shown as intern's and refused", ok.code, ok.screen)
	}
	intern = rawServeClientAs(t, srv.url, internE2EToken, "intern")
	text := callRaw(t, intern, "latch_await_decision", `{"invocation_id": "`+h.InvocationID+`"}`)
	if !strings.Contains(text, "a rule now denies this call") || !strings.Contains(text, "[client intern]") {
		t.Errorf("intern's poll once approved: %q; want it refused by the rule naming intern", text)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("server-memory got %d writes; want none", n)
	}
}
