package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
)

// TestCompleteAnswers: cobra's __complete request, as the shells' scripts
// send it, answers with latch's subcommands, a command's flags, the
// values of --mode and --format, and the saved sessions' ids where an id
// goes. A session's first prompt (a person's or a pasted text, maybe
// hostile) reaches the completion only as one sanitized line: no escape,
// no tab, no newline that would end or forge an entry.
func TestCompleteAnswers(t *testing.T) {
	getenv, dir := sessionsDir(t)
	writeLog(t, dir, "20261101-100000-a1b2c3", time.Hour,
		`"type":"user_message","turn":1,"text":"hi\u001b]52;c;cm0gLXJmIH4=\u0007\tforged\nlatch-evil\tx"`)
	for _, tc := range []struct {
		args []string
		want []string // lines of the answer, in order, each whole
	}{
		{[]string{"__completeNoDesc", "ser"}, []string{"serve", ":4"}},
		{[]string{"__completeNoDesc", "serve", "--st"}, []string{"--stdio", ":4"}},
		// the chat's own --continue is not offered after serve
		{[]string{"__completeNoDesc", "serve", "--con"}, []string{"--config", ":4"}},
		{[]string{"__completeNoDesc", "policy", ""}, []string{"check", "list", ":4"}},
		{[]string{"__completeNoDesc", "--mode", ""}, []string{"read_only", "ask", "approve", "auto", ":4"}},
		{[]string{"__completeNoDesc", "export", "x", "--format", ""}, []string{"md", "json", "html", ":4"}},
		{[]string{"__completeNoDesc", "export", ""}, []string{"20261101-100000-a1b2c3", ":4"}},
		{[]string{"__completeNoDesc", "--resume", ""}, []string{"20261101-100000-a1b2c3", ":4"}},
	} {
		var out, errb strings.Builder
		if code := Run(tc.args, strings.NewReader(""), &out, &errb, getenv); code != exitOK {
			t.Errorf("latch %q: exit %d, %s", tc.args, code, errb.String())
			continue
		}
		got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(got) > 0 && strings.HasPrefix(got[len(got)-1], "Completion ended") {
			got = got[:len(got)-1]
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("latch %q answers\n%q\nwant\n%q", tc.args, got, tc.want)
		}
	}
	var out strings.Builder
	Run([]string{"__complete", "export", ""}, strings.NewReader(""), &out, &out, getenv)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || strings.Count(lines[0], "\t") != 1 || strings.ContainsAny(lines[0], "\x1b\x07") ||
		!strings.HasPrefix(lines[0], "20261101-100000-a1b2c3\t") {
		t.Errorf("a session's prompt is not one clean description:\n%q", out.String())
	}
}

// TestBashCompletionScript runs the script `latch completion bash`
// writes, in bash, against the built latch: the function bash calls on
// Tab completes a subcommand, a flag after it and a flag's values. (The
// bash-completion package's _get_comp_words_by_ref is stood in for by a
// line of bash, as a system without the package gets from cobra's
// script.) zsh's and fish's scripts are checked to be theirs and to ask
// latch itself.
func TestBashCompletionScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	// The binary the other end-to-end tests run (with -race under make
	// test): a second flavour would be a second build of latch.
	bin := latchBinary(t, mcptestutil.RaceEnabled)
	dir := t.TempDir()
	if err := os.Symlink(bin, filepath.Join(dir, "latch")); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + dir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + dir}
	script := func(shell string) string {
		cmd := exec.Command(bin, "completion", shell)
		cmd.Env = env
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("latch completion %s: %v", shell, err)
		}
		return string(b)
	}
	path := filepath.Join(dir, "latch.bash")
	if err := os.WriteFile(path, []byte(script("bash")), 0o600); err != nil {
		t.Fatal(err)
	}
	prog := `_get_comp_words_by_ref() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
source "$1"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($#-1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; __start_latch 2>/dev/null; echo "${COMPREPLY[*]}"; }
c latch ser
c latch serve --st
c latch --mode ""
c latch policy ""
c latch export x --format ""
`
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog, "bash", path)
	cmd.Env = env
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, b)
	}
	want := "serve\n--stdio\nread_only ask approve auto\ncheck list\nmd json html\n"
	if string(b) != want {
		t.Errorf("bash completes\n%s\nwant\n%s", b, want)
	}
	if s := script("zsh"); !strings.HasPrefix(s, "#compdef latch") || !strings.Contains(s, "__complete") {
		t.Errorf("latch completion zsh:\n%.300s", s)
	}
	if s := script("fish"); !strings.Contains(s, "complete -c latch") || !strings.Contains(s, "__complete") {
		t.Errorf("latch completion fish:\n%.300s", s)
	}
}

// After approve and reject, the completion offers the calls that wait,
// never one decided already, and only ids (a client's tool name reaches
// it as one clean description).
func TestCompleteOffersOnlyWaitingCalls(t *testing.T) {
	getenv, dir := sessionsDir(t)
	sess := parkingSession(t, dir)
	var ids []string
	for _, text := range []string{"one", "two"} {
		r := sess.GatewayCall(context.Background(), session.GatewayCall{Client: "ci", Name: "notes__write_note",
			Arguments: map[string]any{"text": text}})
		if r.Decision != session.GatewayParked {
			t.Fatalf("the call did not park: %+v", r)
		}
		ids = append(ids, r.ID)
	}
	if err := sess.GatewayDecide(ids[0], false, "test", "no"); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"approve", "reject"} {
		var out, errb strings.Builder
		if code := Run([]string{"__completeNoDesc", cmd, ""}, strings.NewReader(""), &out, &errb, getenv); code != exitOK {
			t.Fatalf("latch __complete %s: exit %d, %s", cmd, code, errb.String())
		}
		got := strings.Split(strings.TrimSpace(out.String()), "\n")
		if len(got) < 2 || got[0] != ids[1] || slices.Contains(got, ids[0]) || !strings.HasPrefix(got[1], ":") {
			t.Errorf("latch %s <Tab> offers %q; want the waiting %s alone, not the decided %s", cmd, got, ids[1], ids[0])
		}
		if errb.Len() != 0 {
			t.Errorf("latch %s <Tab> wrote to stderr: %q", cmd, errb.String())
		}
	}
}
