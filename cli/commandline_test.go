package cli

import (
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCommandLineStatusAndFirstLine pins, through Run, the exit status
// and the first line a person sees for each kind of usage error, for
// --help on every command (its own flags listed, on stdout) and for
// --version: 0 ok, 2 usage, and one line naming the flag or command,
// with the nearest one when it is a typo away.
func TestCommandLineStatusAndFirstLine(t *testing.T) {
	home := t.TempDir()
	env := envOf(map[string]string{"HOME": home})
	for _, tc := range []struct {
		args   []string
		code   int
		stdout bool     // the line is stdout's first (else stderr's)
		first  string   // the first line, whole
		has    []string // more that the output holds (a help's flags)
	}{
		{[]string{"--mdoe", "ask"}, exitUsage, false, "latch: unknown flag --mdoe; did you mean --mode? (see latch --help)", nil},
		{[]string{"--nope"}, exitUsage, false, "latch: unknown flag --nope (see latch --help)", nil},
		{[]string{"-x"}, exitUsage, false, "latch: unknown flag -x (see latch --help)", nil},
		{[]string{"serve", "-mdoe", "ask"}, exitUsage, false, "latch: latch serve: unknown flag -mdoe; did you mean --mode? (see latch serve --help)", nil},
		{[]string{"-x\x1b[2J"}, exitUsage, false, "latch: unknown flag -x␛[2J (see latch --help)", nil},
		{[]string{"serv"}, exitUsage, false, `latch: unknown command "serv"; did you mean latch serve? (see latch --help)`, nil},
		{[]string{"hello"}, exitUsage, false, `latch: unexpected argument "hello": not a command (see latch --help; a prompt goes after -p)`, nil},
		{[]string{"serve", "--stdo"}, exitUsage, false, "latch: latch serve: unknown flag --stdo; did you mean --stdio? (see latch serve --help)", nil},
		// a flag of latch's after the subcommand is read there
		{[]string{"serve", "--stdio", "--mode", "yolo"}, exitUsage, false, `latch: --mode: "yolo" is not a mode (read_only, ask, approve, auto)`, nil},
		{[]string{"serve", "--stdio", "--config", filepath.Join(home, "nope.json")}, exitUsage, false,
			"latch: config " + filepath.Join(home, "nope.json") + ": file not found", nil},
		{[]string{"serve", "-p", "hi"}, exitUsage, false, "latch: latch serve: -p goes with the chat (latch without a command)", nil},
		{[]string{"--mode"}, exitUsage, false, "latch: --mode needs a value (see latch --help)", nil},
		{[]string{"export"}, exitUsage, false, "latch: latch export: give the id of a session (latch sessions lists them)", nil},
		{[]string{"approve"}, exitUsage, false, "latch: latch approve: give the id of a waiting call (latch approvals lists them)", nil},
		{[]string{"policy", "check", "fs__x"}, exitUsage, false,
			`latch: latch policy check: give TOOL and 'JSON-ARGS', e.g. latch policy check fs__read_text_file '{"path": "~/src/a.go"}'`, nil},
		{[]string{"sessions", "prune"}, exitUsage, false, "latch: latch sessions prune: --older-than AGE is needed (e.g. --older-than 30d)", nil},
		{[]string{"approvals", "x"}, exitUsage, false, `latch: latch approvals: unexpected argument "x"`, nil},
		{[]string{"--version"}, exitOK, true, "latch dev", nil},
		{[]string{"--help"}, exitOK, true, "latch — chat with a local Ollama model, with MCP tools behind a permission gate.",
			[]string{"--config path", "-p, --prompt prompt", "--continue", "serve ", "approvals ", "completion ", "LATCH_CONFIG"}},
		{[]string{"serve", "--help"}, exitOK, true, "", []string{"--stdio", "--listen ADDR", "--fresh", "--mode mode", "--config path", "Examples:"}},
		{[]string{"help", "serve"}, exitOK, true, "", []string{"--stdio", "--listen ADDR"}},
		{[]string{"serve", "-h"}, exitOK, true, "", []string{"--stdio"}},
		{[]string{"approvals", "--help"}, exitOK, true, "calls waiting for a person (of gateways and chats)", []string{"--full"}},
		{[]string{"approve", "--help"}, exitOK, true, "approve a gateway's waiting call, as a person at a terminal", []string{"--full", "latch approve gw_"}},
		{[]string{"reject", "--help"}, exitOK, true, "", []string{"--reason text", "--full"}},
		{[]string{"policy", "--help"}, exitOK, true, "", []string{"check", "list", "--non-interactive"}},
		{[]string{"policy", "check", "--help"}, exitOK, true, "", []string{"--non-interactive", "--allow name", "--mode mode"}},
		{[]string{"policy", "list", "--help"}, exitOK, true, "", []string{"--config path"}},
		{[]string{"sessions", "--help"}, exitOK, true, "", []string{"rm", "prune", "latch sessions prune --older-than 30d"}},
		{[]string{"sessions", "prune", "--help"}, exitOK, true, "", []string{"--older-than age", "--dry-run"}},
		{[]string{"sessions", "rm", "--help"}, exitOK, true, "delete saved sessions", nil},
		{[]string{"export", "--help"}, exitOK, true, "", []string{"--format md", "-o, --output file"}},
		{[]string{"completion", "--help"}, exitOK, true, "", []string{"bash", "zsh", "fish"}},
	} {
		var out, errb strings.Builder
		code := Run(tc.args, strings.NewReader(""), &out, &errb, env)
		text := errb.String()
		if tc.stdout {
			text = out.String()
		}
		first, _, _ := strings.Cut(text, "\n")
		if code != tc.code || (tc.first != "" && first != tc.first) {
			t.Errorf("latch %q: exit %d, first line %q; want %d and %q\nstdout: %s\nstderr: %s",
				tc.args, code, first, tc.code, tc.first, out.String(), errb.String())
			continue
		}
		if tc.code == exitUsage && strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("latch %q: a usage error in more than one line:\n%s", tc.args, errb.String())
		}
		for _, want := range tc.has {
			if !strings.Contains(text, want) {
				t.Errorf("latch %q does not say %q:\n%s", tc.args, want, text)
			}
		}
	}
}

// TestSingleDashLongFlags: the single-dash long flags Go's flag package
// read (-config FILE, -mode ask, -full, -older-than 30d …) still read
// the same, and no flag's value is taken for a flag: -p -mode is the
// prompt "-mode".
func TestSingleDashLongFlags(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		check func(flags) bool
	}{
		{[]string{"-config", "c.json", "-mode", "ask", "-model=m"}, func(f flags) bool { return f.config == "c.json" && f.mode == "ask" && f.model == "m" }},
		{[]string{"-p", "-mode"}, func(f flags) bool { return f.promptSet && f.prompt == "-mode" && f.mode == "" }},
		{[]string{"--p", "hi", "-json"}, func(f flags) bool { return f.promptSet && f.prompt == "hi" && f.json }},
		{[]string{"-resume", "abc", "-continue=false"}, func(f flags) bool { return f.resume == "abc" && !f.cont }},
		{[]string{"serve", "-stdio", "-mode", "ask"}, func(f flags) bool { return f.serve.stdio && f.mode == "ask" }},
		{[]string{"approvals", "-full"}, func(f flags) bool { return f.command == "approvals" && f.decide.full }},
		{[]string{"reject", "gw_1", "-reason", "-full"}, func(f flags) bool { return f.decide.reason == "-full" && !f.decide.full }},
		{[]string{"sessions", "prune", "-older-than", "30d", "-dry-run"}, func(f flags) bool { return f.sessions.older == "30d" && f.sessions.dryRun }},
		{[]string{"export", "x1", "-format", "json", "--o", "f.json"}, func(f flags) bool { return f.export.format == "json" && f.export.out == "f.json" }},
		{[]string{"policy", "check", "-non-interactive", "fs__a", `{"-mode": 1}`}, func(f flags) bool { return f.policy.nonInteractive && f.mode == "" }},
		{[]string{"--model", "m", "--", "-config"}, nil}, // after "--" nothing is a flag: -config is an argument
	} {
		f, err := parseFlags(tc.args, io.Discard)
		if tc.check == nil {
			if err == nil || !strings.Contains(err.Error(), `"-config"`) {
				t.Errorf("%q: %v; want -config taken as an argument", tc.args, err)
			}
			continue
		}
		if err != nil || !tc.check(f) {
			t.Errorf("%q: %+v, %v", tc.args, f, err)
		}
	}
	// the rewrite leaves a completion request alone
	if got := oldLongFlags(newRoot(&flags{}, envOf(nil)), []string{"__complete", "-con"}); !slices.Equal(got, []string{"__complete", "-con"}) {
		t.Errorf("a completion request rewritten: %q", got)
	}
}

// TestPolicyCheckFlagsAnywhere: latch policy check reads latch's flags
// where a person puts them: --allow and --config after the subcommand, or
// before it, decide as the same call (before cobra, --allow after
// `policy` was "flag provided but not defined").
func TestPolicyCheckFlagsAnywhere(t *testing.T) {
	path, dir := writeConfig(t, `{"mcpServers": {"fs": {"command": "x"}}}`)
	for _, args := range [][]string{
		{"policy", "check", "--allow", "fs__write_file", "fs__write_file", `{"path": "/tmp/x"}`, "--config", path},
		{"--allow=fs__write_file", "--config", path, "policy", "check", "fs__write_file", `{"path": "/tmp/x"}`},
		{"policy", "-allow", "fs__write_file", "check", "-config", path, "fs__write_file", `{"path": "/tmp/x"}`},
	} {
		out, errs, code := runLatch(t, dir, args...)
		if code != exitOK || !strings.HasPrefix(out, "allow\n") {
			t.Errorf("latch %q: exit %d\n%s%s", args, code, out, errs)
		}
	}
}
