package cli

import (
	"strings"
	"testing"

	"latch/config"
	"latch/session"
)

// TestSamplingAllowEntries: "SERVER@sampling" in permissions.allow and
// "@sampling" in a server's own allow are taken; a request kind that means
// nothing (another kind, no server, an unknown server, a server name in a
// server's own allow) is refused, naming the entry and what is wrong.
func TestSamplingAllowEntries(t *testing.T) {
	servers := `"mcpServers": {"every": {"command": "a", "allow": [%s]}, "fs": {"command": "b"}}`
	ok := `{"permissions": {"allow": ["every@sampling", "fs__read_file"]}, ` + strings.Replace(servers, "%s", `"@sampling", "echo"`, 1) + `}`
	path, dir := writeConfig(t, ok)
	cfg, err := config.Load(path, envOf(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatalf("valid sampling entries: %v", err)
	}
	if cfg.Permissions.Allow[0] != "every@sampling" {
		t.Errorf("allow %q", cfg.Permissions.Allow)
	}
	for allow, want := range map[string]string{
		`"every@Sampling"`: `"every@Sampling": the only request kind is @sampling`,
		`"@sampling"`:      `"@sampling": name the server`,
		`"nope@sampling"`:  `"nope@sampling": no server "nope" is configured (servers: every, fs)`,
	} {
		path, dir := writeConfig(t, `{"permissions": {"allow": [`+allow+`]}, `+strings.Replace(servers, "%s", "", 1)+`}`)
		_, err := config.Load(path, envOf(map[string]string{"HOME": dir}))
		if err == nil || !strings.Contains(err.Error(), "permissions.allow") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", allow, err, want)
		}
	}
	path, dir = writeConfig(t, `{`+strings.Replace(servers, "%s", `"every@sampling"`, 1)+`}`)
	if _, err := config.Load(path, envOf(map[string]string{"HOME": dir})); err == nil ||
		!strings.Contains(err.Error(), `server "every"`) || !strings.Contains(err.Error(), `takes the request kind "@sampling"`) {
		t.Errorf("a server name in a server's own allow: %v", err)
	}
}

// TestSamplingAllowFlag: --allow SERVER@sampling is taken for a configured
// server and refused otherwise, with exit status 2.
func TestSamplingAllowFlag(t *testing.T) {
	path, dir := writeConfig(t, `{"mcpServers": {"every": {"command": "a"}}}`)
	var out, errb strings.Builder
	code := run([]string{"--config", path, "--allow", "evry@sampling"}, strings.NewReader(""), &out, &errb, envOf(map[string]string{"HOME": dir}))
	if code != exitUsage || !strings.Contains(errb.String(), `--allow: "evry@sampling": no server "evry" is configured`) {
		t.Fatalf("exit %d, stderr %q", code, errb.String())
	}
	f := flags{config: path, allow: listFlag{"every@sampling"}}
	if _, err := loadSettings(f, envOf(map[string]string{"HOME": dir})); err != nil {
		t.Errorf("--allow every@sampling: %v", err)
	}
}

// TestPrintSampling: -p says on stderr what became of a server's sampling
// request (denied, with why; or sent), and nothing more with --json.
func TestPrintSampling(t *testing.T) {
	var out, errb strings.Builder
	p := newPrinter("20261201-000000-abcdef", false, &out, &errb)
	p.event(&session.SamplingEvent{Server: "every", Step: session.SamplingDenied,
		Reason: "no one to ask in non-interactive mode (-p); every@sampling is not allow-listed"})
	p.event(&session.SamplingEvent{Server: "every", Step: session.SamplingSent})
	want := "latch: sampling request of every denied: no one to ask in non-interactive mode (-p); every@sampling is not allow-listed\n" +
		"latch: sampling request of every answered by the model and sent\n"
	if errb.String() != want || out.String() != "" {
		t.Errorf("stderr %q, stdout %q", errb.String(), out.String())
	}
}
