package cli

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"
)

func TestParseApproveReject(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want decideArgs
	}{
		{[]string{"approve", "gw_1a"}, decideArgs{approve: true, id: "gw_1a"}},
		{[]string{"reject", "gw_1a", "--reason", "not today"}, decideArgs{id: "gw_1a", reason: "not today"}},
		{[]string{"reject", "--reason", "no\x1b[2J", "gw_1a"}, decideArgs{id: "gw_1a", reason: "no␛[2J"}},
	} {
		f, err := parseFlags(tt.args, io.Discard)
		if err != nil || f.command != "decide" || f.decide != tt.want {
			t.Errorf("%q: %+v, %v; want %+v", tt.args, f.decide, err, tt.want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"approve"}, "give the id of a waiting call"},
		{[]string{"approve", "gw_1", "gw_2"}, `unexpected argument "gw_2"`},
		{[]string{"approve", "../x"}, "not a call id"},
		{[]string{"approve", "gw_1", "--reason", "x"}, "latch approve: unknown flag --reason (see latch approve --help)"},
		{[]string{"approve", "gw_1", "--yes"}, "latch approve: unknown flag --yes (see latch approve --help)"}, // no way around the question
		{[]string{"approvals", "x"}, `unexpected argument "x"`},
	} {
		if _, err := parseFlags(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}

// latch approve and latch reject with an input that is not a terminal (a
// pipe, a file, /dev/null: what an agent's shell tool gives) are refused
// with status 2 and one line saying why, before anything is looked up.
func TestDecideNeedsATerminal(t *testing.T) {
	getenv, _ := sessionsDir(t)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	for _, stdin := range []io.Reader{strings.NewReader("0000\n"), null} {
		for _, verb := range []string{"approve", "reject"} {
			var out, errb bytes.Buffer
			code := run([]string{verb, "gw_000000000000"}, stdin, &out, &errb, getenv)
			if code != exitUsage || out.Len() != 0 || strings.Count(errb.String(), "\n") != 1 ||
				!strings.Contains(errb.String(), "its input is not a terminal") {
				t.Errorf("latch %s with stdin %T: exit %d, stdout %q, stderr %q", verb, stdin, code, out.String(), errb.String())
			}
		}
	}
}
