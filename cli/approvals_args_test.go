package cli

import (
	"io"
	"strings"
	"testing"

	"latch/config"
	"latch/permissions"
	"latch/session"
)

// latch approve shows whole the values the config's rules about the
// call's tool look at (a long command an ask rule decided on), and
// elides a value no rule looks at; latch approvals --full and
// its flags are --full and nothing else.
func TestApproveShowsWholeWhatARuleLooksAt(t *testing.T) {
	spec, err := permissions.ParseCompact(`shell__run(command=re:.*rm .*)`, "ask", "--ask")
	if err != nil {
		t.Fatal(err)
	}
	r, err := permissions.CompileRule(spec, "", "config: permissions.rules[0]", "/home/me")
	if err != nil {
		t.Fatal(err)
	}
	s := &settings{cfg: &config.Config{Servers: []config.ServerConfig{{Name: "shell"}}}, mode: "ask", flagRules: []permissions.Rule{r},
		getenv: func(string) string { return "" }}
	command := "echo " + strings.Repeat("a", 400) + " ; rm -rf ~ ; echo " + strings.Repeat("b", 400)
	p := session.ParkedCall{CallID: "gw_0123456789ab", Server: "shell", Tool: "shell__run",
		Arguments: map[string]any{"command": command, "note": strings.Repeat("n", 500)}}
	var b strings.Builder
	writeArgsBlock(&b, p, argsView(rulesGate(s), p, false))
	out := b.String()
	for _, want := range []string{"  arguments  2 keys, 1 elided in the middle (latch approve gw_0123456789ab --full shows every value whole)\n",
		`      "command": "` + command + `",`, `      "note": "` + strings.Repeat("n", 60) + `"…(380 characters)…"`} {
		if !strings.Contains(out, want) {
			t.Errorf("latch approve does not show %.100q:\n%s", want, out)
		}
	}
	if row := listedArgs(rulesGate(s), p, false); !strings.Contains(row, `"command": "`+command+`"`) {
		t.Errorf("latch approvals does not show the command whole: %s", row)
	}
	for _, tc := range []struct {
		args []string
		full bool
		ok   bool
	}{{nil, false, true}, {[]string{"--full"}, true, true}, {[]string{"--all"}, false, false}} {
		f, err := parseFlags(append([]string{"approvals"}, tc.args...), io.Discard)
		if full := f.decide.full; full != tc.full || (err == nil) != tc.ok {
			t.Errorf("latch approvals %q: full %v, %v", tc.args, full, err)
		}
	}
}
