package cli

import (
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/config"
)

// TestLoadConfigClineApp: a Cline file loads: alwaysAllow and autoApprove
// are the server's allow, exact tool names only (a pattern, a number or
// "@sampling" allows nothing), disabled disables, a timeout in seconds is
// a timeout, transportType a transport.
func TestLoadConfigClineApp(t *testing.T) {
	cfg, err := config.Load(copyFixture(t, "cline_mcp_settings.json"), envOf(nil))
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	fs, weather, brave := serverNamed(t, cfg, "filesystem"), serverNamed(t, cfg, "weather"), serverNamed(t, cfg, "brave-search")
	if !reflect.DeepEqual(fs.Allow, []string{"list_directory", "read_file"}) || fs.Disabled || fs.Timeout != 60*time.Second || fs.Transport != "stdio" {
		t.Errorf("filesystem = allow %q disabled %v timeout %v transport %q", fs.Allow, fs.Disabled, fs.Timeout, fs.Transport)
	}
	if !reflect.DeepEqual(weather.Allow, []string{"get_forecast"}) || !weather.Disabled {
		t.Errorf("weather = allow %q disabled %v", weather.Allow, weather.Disabled)
	}
	if !reflect.DeepEqual(brave.Allow, []string{"brave_web_search"}) || brave.Timeout != 120*time.Second || brave.Transport != "sse" {
		t.Errorf("brave-search = allow %q timeout %v transport %q", brave.Allow, brave.Timeout, brave.Transport)
	}
	for _, want := range []string{
		`server "filesystem": alwaysAllow: these tools run without asking (the server's allow): list_directory, read_file`,
		`server "brave-search": alwaysAllow[1]: "*": latch matches tool names exactly; it allows nothing`,
		`server "brave-search": alwaysAllow[2]: not a tool name (number); it allows nothing`,
		`server "brave-search": alwaysAllow[3]: "@sampling" is not a tool name; it allows nothing`,
	} {
		if len(warningsWith(cfg, want)) != 1 {
			t.Errorf("no notice %q in %q", want, cfg.Warnings)
		}
	}
	// The gate's policy holds exactly those tools of exactly that server.
	p := (&settings{cfg: cfg, mode: "read_only"}).policy()
	if !reflect.DeepEqual(p.ServerAllow["brave-search"], []string{"brave_web_search"}) || len(p.Allow) != 0 {
		t.Errorf("policy: %+v", p)
	}
}

// TestPromptRefusesVSCodeInput: with -p there is no one to ask for an
// ${input:…} value: the run says which server and input, and what to do.
func TestPromptRefusesVSCodeInput(t *testing.T) {
	r := newPromptRig(t, nil, false)
	body := `{"inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
 "servers": {"search": {"type": "http", "url": "https://search.example.com/mcp", "headers": {"Authorization": "Bearer ${input:api-key}"}}}}`
	if err := os.WriteFile(r.cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	res := r.run("", "--model", e2eModel, "-p", "hi")
	want := `server "search": needs ${input:api-key}, a value VS Code asks for; with -p there is no one to ask for it, so this server is not loaded`
	if res.code != exitOK || !strings.Contains(res.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 0 and %q", res.code, res.stderr, want)
	}
	if slices.ContainsFunc(strings.Split(res.stderr, "\n"), func(l string) bool { return strings.Contains(l, "Bearer") }) {
		t.Errorf("the header's value is quoted: %q", res.stderr)
	}
}
