package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"latch/mcp/oauthtest"
	"latch/session/ollamatest"
)

// TestPromptServerNeedingALoginFailsFast: in -p no browser opens. A server
// that needs an OAuth login fails at once, stderr saying what to run
// (latch, then /login NAME), and the prompt is answered without it; a
// client_credentials server logs in by itself and its tools are offered.
// Nothing of the exchange (codes, tokens) reaches stdout, stderr or the
// session log.
func TestPromptServerNeedingALoginFailsFast(t *testing.T) {
	t.Parallel()
	web := oauthtest.New(oauthtest.Config{})
	defer web.Close()
	bot := oauthtest.New(oauthtest.Config{NoDCR: true, ClientID: "build-bot", ClientSecret: "s3cret-of-the-bot-7f1e"})
	defer bot.Close()
	r := newPromptRig(t, map[string]any{"mcpServers": map[string]any{
		"web": map[string]any{"url": web.URL(), "connect_timeout": "1h"},
		"ci": map[string]any{"url": bot.URL(), "grant": "client_credentials", "client_id": "build-bot",
			"client_secret_env": "LATCH_TEST_BOT_SECRET"},
	}}, false, "LATCH_TEST_BOT_SECRET=s3cret-of-the-bot-7f1e")
	r.fake.Script(ollamatest.TextTurn("Answered without web."))
	// web's connect timeout is an hour and a login waits five minutes for
	// the browser, both beyond the run's bound (run kills latch after two
	// minutes): an answer and exit 0 show that -p waited for neither.
	res := r.run("", "--model", e2eModel, "-p", "hello")
	if res.code != exitOK || res.stdout != "Answered without web.\n" {
		t.Fatalf("exit %d, stdout %q", res.code, res.stdout)
	}
	if !strings.Contains(res.stderr, "web") || !strings.Contains(res.stderr, "/login web") {
		t.Errorf("stderr does not say how to log in to web:\n%s", res.stderr)
	}
	offered := map[string]bool{}
	for _, tool := range r.lastRequest().Tools {
		offered[strings.SplitN(tool.Function.Name, "__", 2)[0]] = true
	}
	if !offered["ci"] || offered["web"] {
		t.Errorf("tools offered from %v, want ci's (client_credentials) and not web's", offered)
	}
	if len(bot.Tokens) == 0 {
		t.Error("ci got no token: client_credentials did not log in")
	}
	logText := ""
	for _, id := range r.sessionIDs() {
		for _, e := range r.logEvents(id) {
			b, _ := json.Marshal(e)
			logText += string(b)
		}
	}
	for _, secret := range append(bot.Tokens, web.Tokens...) {
		for where, text := range map[string]string{"stdout": res.stdout, "stderr": res.stderr, "the session log": logText} {
			if strings.Contains(text, secret) {
				t.Errorf("a token is in %s", where)
			}
		}
	}
	if strings.Contains(res.stderr+logText, "s3cret-of-the-bot-7f1e") {
		t.Error("the client secret was shown or logged")
	}
}
