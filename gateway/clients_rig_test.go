package gateway_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

const (
	ciToken     = "ci-bot-token-0123456789"
	internToken = "intern-token-0123456789"
)

// namedClients are ClientTokens naming ci-bot and intern by their tokens.
func namedClients() *gateway.ClientTokens {
	return &gateway.ClientTokens{Load: func() (map[string]string, []string, error) {
		return map[string]string{"ci-bot": ciToken, "intern": internToken}, nil, nil
	}}
}

// rulesOf compiles global rules for a test.
func rulesOf(t *testing.T, specs ...permissions.RuleSpec) []permissions.Rule {
	t.Helper()
	var out []permissions.Rule
	for _, s := range specs {
		r, err := permissions.CompileRule(s, "", "test rule "+s.Decision+" "+s.Client, "")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// Through the real gateway, two mcp-go clients each holding its own
// token: a rule naming ci-* allows ci-bot's call, a rule naming intern
// denies intern's even though intern calls itself "ci-bot", and a client
// of the shared token calling itself ci-bot is put to a person (parked)
// as without the rules. The log, the session log and the approval list
// name each by its verified name and what it says of itself.
func TestClientRulesThroughTheGateway(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	dir := t.TempDir()
	var log mcptestutil.SyncBuffer
	rules := rulesOf(t, permissions.RuleSpec{Tool: "up__echo", Decision: "allow", Client: "ci-*"},
		permissions.RuleSpec{Tool: "up__echo", Decision: "deny", Client: "intern"})
	r := startRigHTTP(t, gateway.Options{Log: &log}, true,
		session.Options{LogDir: dir, Policy: permissions.Policy{Mode: permissions.Ask, Rules: rules}},
		gateway.HTTPOptions{Token: token, Clients: namedClients()},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	ci := r.connectWith(t, ciToken, "2025-11-25", "claude-code", nil)
	intern := r.connectWith(t, internToken, mcp.LATEST_PROTOCOL_VERSION, "ci-bot", nil)
	shared := r.connectWith(t, token, "2025-11-25", "ci-bot", nil)

	if res, err := call(t, ci, "up__echo", map[string]any{"text": "hi"}); err != nil || res.IsError || text(res) != "echo hi" {
		t.Errorf("ci-bot's call: %v %+v; want it run", err, res)
	}
	if res, err := call(t, intern, "up__echo", map[string]any{"text": "hi"}); err != nil || !res.IsError ||
		!strings.Contains(text(res), "denied") || !strings.Contains(text(res), "[client intern]") {
		t.Errorf("intern's call: %v %+v; want it denied by the rule naming intern", err, res)
	}
	res, err := call(t, shared, "up__echo", map[string]any{"text": "hi"})
	if err != nil || invocationID(res) == "" {
		t.Fatalf("the shared token's call: %v %+v; want it parked", err, res)
	}
	for _, want := range []string{`latch serve: ci-bot (says "claude-code") up__echo allowed`,
		`latch serve: intern (says "ci-bot") up__echo denied`, "latch serve: ci-bot up__echo parked"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("the log has no %q:\n%s", want, log.String())
		}
	}
	parked, err := session.ParkedCalls(dir)
	if err != nil || len(parked) != 1 || parked[0].Client != "ci-bot" || parked[0].Caller != (permissions.CallClient{}) {
		t.Errorf("the parked calls: %v %+v; want the shared token's, named by what it says alone", err, parked)
	}
	logged, err := os.ReadFile(filepath.Join(dir, r.sess.ID()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"client":"intern (says \"ci-bot\")","client_name":"intern","client_verified":true`,
		`"client":"ci-bot (says \"claude-code\")","client_name":"ci-bot","client_verified":true`} {
		if !strings.Contains(string(logged), want) {
			t.Errorf("the session log has no %s:\n%s", want, logged)
		}
	}
}

// --as names the client over stdio, unverified: an allow rule naming it
// does not allow its call (no claim earns an allowance: it is put to a
// person, parked, as without the rule), a deny rule naming it refuses
// it, and the log marks the name as unverified.
func TestStdioAsIsAnUnverifiedName(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	var log mcptestutil.SyncBuffer
	rules := rulesOf(t, permissions.RuleSpec{Tool: "up__echo", Decision: "allow", Client: "ci-*"},
		permissions.RuleSpec{Tool: "up__hold", Decision: "deny", Client: "ci-bot"})
	r := startRig(t, gateway.Options{Log: &log, As: "ci-bot"}, true,
		session.Options{LogDir: t.TempDir(), Policy: permissions.Policy{Mode: permissions.Ask, Rules: rules}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	c := r.stdioClient(t, "claude-code")
	if res, err := call(t, c, "up__echo", map[string]any{"text": "hi"}); err != nil || invocationID(res) == "" {
		t.Errorf("the call an allow rule names ci-bot for: %v %+v; want it parked", err, res)
	}
	if res, err := call(t, c, "up__hold", nil); err != nil || !res.IsError || !strings.Contains(text(res), "[client ci-bot]") {
		t.Errorf("the call a deny rule names ci-bot for: %v %+v; want it denied by that rule", err, res)
	}
	if want := `latch serve: ci-bot, unverified (says "claude-code") up__echo parked`; !strings.Contains(log.String(), want) {
		t.Errorf("the log has no %q:\n%s", want, log.String())
	}
}

// The park quota of a client its token names is its own, whatever
// sessions it opens and whatever it calls itself: a second session of
// ci-bot does not get a second quota, and intern calling itself ci-bot
// (stateless, with no session) does not spend ci-bot's.
func TestParkQuotaByVerifiedName(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := startRigHTTP(t, gateway.Options{Limits: gateway.Limits{ParkCalls: 1}}, true,
		session.Options{LogDir: t.TempDir(), Policy: permissions.Policy{Mode: permissions.Approve}},
		gateway.HTTPOptions{Token: token, Clients: namedClients()},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	ci1 := r.connectWith(t, ciToken, "2025-11-25", "ci-bot", nil)
	ci2 := r.connectWith(t, ciToken, "2025-11-25", "ci-bot", nil)
	intern := r.connectWith(t, internToken, mcp.LATEST_PROTOCOL_VERSION, "ci-bot", nil)
	for i, s := range []struct {
		c    *client.Client
		want string
	}{
		{ci1, ""},
		{ci2, `too many calls waiting for approval from ci-bot (says "ci-bot"): at most 1 wait at once`},
		{intern, ""},
	} {
		res, err := call(t, s.c, "up__echo", map[string]any{"text": "hi"})
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		if got := invocationID(res); (got != "") != (s.want == "") || !strings.Contains(text(res), s.want) {
			t.Errorf("step %d: %q; want %q", i+1, text(res), s.want)
		}
	}
}

// A client of its own token naming itself with escapes, a line break
// and a forged label: with --json the line has its verified name apart
// (client_name, client_verified) and what it says (client_says) made
// inert; as text the call is one line whose label begins with the
// verified name, what it says between quotes, its escapes shown inert.
func TestClientLabelOfAHostileClientInfo(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	hostile := "ci-bot (says \"x\")\n\x1b[2Jlatch serve: ci-bot up__echo allowed"
	for _, asJSON := range []bool{true, false} {
		var log mcptestutil.SyncBuffer
		r := startRigHTTP(t, gateway.Options{Log: &log, JSON: asJSON}, true, session.Options{},
			gateway.HTTPOptions{Token: token, Clients: namedClients()},
			session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
		c := r.connectWith(t, internToken, "2025-11-25", hostile, nil)
		if _, err := call(t, c, "up__echo", map[string]any{"text": "hi"}); err != nil {
			t.Fatal(err)
		}
		out := strings.TrimSpace(log.String())
		if strings.Count(out, "\n") != 0 || strings.Contains(out, "\x1b") {
			t.Errorf("json %v: want one line, no escape:\n%q", asJSON, out)
		}
		if !asJSON {
			if !strings.HasPrefix(out, `latch serve: intern (says "ci-bot (says "x") ␛[2J`) {
				t.Errorf("the text line: %q", out)
			}
			continue
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(out), &obj); err != nil {
			t.Fatal(err)
		}
		if obj["client_name"] != "intern" || obj["client_verified"] != true ||
			!strings.HasPrefix(obj["client"].(string), "intern (says ") || !strings.HasPrefix(obj["client_says"].(string), "ci-bot (says") {
			t.Errorf("the JSON line: %s", out)
		}
	}
}

// Stateless (2026-07-28) requests have no session: a client its token
// names counts against its own limits, not those of the name it gives
// itself, so a client of the shared token calling itself as ci-bot does
// is not held back by ci-bot's calls, nor ci-bot by it.
func TestStatelessLimitsByVerifiedName(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := startRigHTTP(t, gateway.Options{Limits: gateway.Limits{Concurrent: 1}}, true, session.Options{},
		gateway.HTTPOptions{Token: token, Clients: namedClients()},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	ci := r.connectWith(t, ciToken, mcp.LATEST_PROTOCOL_VERSION, "agent", nil)
	other := r.connectWith(t, token, mcp.LATEST_PROTOCOL_VERSION, "agent", nil)
	held := make(chan error, 1)
	go func() {
		_, err := call(t, ci, "up__hold", nil)
		held <- err
	}()
	mcptestutil.WaitFor(t, 20*time.Second, "ci-bot's held call running", func() bool { return up.running.Load() == 1 })
	if res, err := call(t, other, "up__echo", map[string]any{"text": "hi"}); err != nil || res.IsError || text(res) != "echo hi" {
		t.Errorf("the shared token's client of the same name: %v %+v; want its call run", err, res)
	}
	if res, err := call(t, ci, "up__echo", map[string]any{"text": "hi"}); err != nil || !res.IsError ||
		!strings.Contains(text(res), `too many calls at once from ci-bot (says "agent")`) {
		t.Errorf("ci-bot's second call: %v %+v; want it held back by its own limit", err, res)
	}
	up.release()
	if err := <-held; err != nil {
		t.Error(err)
	}
}

// An HTTP session belongs to the client whose token first used it: a
// request with another client's token naming it is refused (404, as an
// unknown session), and its owner goes on in it.
func TestSessionOfAnotherClientIsRefused(t *testing.T) {
	up := newHoldServer()
	defer up.release()
	r := startRigHTTP(t, gateway.Options{}, true, session.Options{},
		gateway.HTTPOptions{Token: token, Clients: namedClients()},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	ci := r.connectWith(t, ciToken, "2025-11-25", "ci-bot", nil)
	if _, err := call(t, ci, "up__echo", map[string]any{"text": "hi"}); err != nil {
		t.Fatal(err)
	}
	id := ci.GetSessionId()
	if id == "" {
		t.Fatal("no session")
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"up__echo","arguments":{"text":"stolen"}}}`
	for _, tok := range []string{internToken, token} {
		req, _ := http.NewRequest("POST", r.url, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || strings.Contains(string(b), "stolen") {
			t.Errorf("ci-bot's session with another token: %d %s; want 404", resp.StatusCode, b)
		}
	}
	if res, err := call(t, ci, "up__echo", map[string]any{"text": "again"}); err != nil || text(res) != "echo again" {
		t.Errorf("ci-bot in its session afterwards: %v %+v", err, res)
	}
}
