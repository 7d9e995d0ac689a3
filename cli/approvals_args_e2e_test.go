package cli

// End-to-end tests of the arguments latch approve and latch approvals
// show: every key, however long the values before it, hostile keys and
// values inert, and --full for every value whole.

import (
	"strings"
	"testing"
)

// hostileArgs are the arguments of a call a hostile client parks: a
// 50 KB first value (its middle a word to look for), a path of 400
// characters, a key of 10,000 characters, a key and a value carrying a
// terminal escape, a bidi override and a planted key, and the keys after
// them that must still show.
func hostileArgs() map[string]any {
	return map[string]any{
		"aa_content": strings.Repeat("x", 25_000) + "MIDDLE" + strings.Repeat("y", 25_000),
		"entities":   []any{map[string]any{"name": "alice", "entityType": "person", "observations": []any{"likes tea"}}},
		"path":       "/srv/proj/" + strings.Repeat("d", 380) + "/file.txt",
		strings.Repeat("k", 5_000) + "KEYMID" + strings.Repeat("k", 5_000): "after a long key",
		"evil\x1b]52;c;ZXZpbA==\x07\u202ekey":                              "v\"\n  \"zz_last\": \"forged\"",
		"zz_last":                                                          "the end",
	}
}

// decideOutput runs latch approve ID [extra…] in a terminal, answers the
// question wrongly (nothing is decided), and returns all it wrote.
func decideOutput(t *testing.T, r *promptRig, id string, extra ...string) string {
	t.Helper()
	tm := r.startDecide("", append([]string{"approve", id}, extra...)...)
	if res := answerDecide(t, tm, "nope"); !res.asked || res.code != exitError {
		t.Fatalf("latch approve %s %v: exit %d (asked %v)", id, extra, res.code, res.asked)
	}
	return strings.ReplaceAll(string(tm.rawOutput()), "\r\n", "\n")
}

// latch approve shows every key of a hostile call's arguments: the 50 KB
// first value elided in its middle with the count left out, the keys
// after it there, the path whole, the 10,000-character key elided, the
// escape, the bidi override and the planted key inert; --full shows every
// value whole. latch approvals lists every key on the call's row, and
// every value whole with --full.
func TestServeApproveShowsEveryArgument(t *testing.T) {
	t.Parallel()
	args := hostileArgs()
	r, _, h := parkCallOverHTTP(t, map[string]any{"name": "mem__create_entities", "arguments": args})
	out := decideOutput(t, r, h.InvocationID)
	for _, want := range []string{
		"  arguments  6 keys, 2 elided in the middle (latch approve " + h.InvocationID + " --full shows every value whole)",
		`      "aa_content": "` + strings.Repeat("x", 60) + `"…(49,886 characters)…"` + strings.Repeat("y", 60) + `",`,
		`"name": "alice"`, `"likes tea"`,
		`      "path": "` + args["path"].(string) + `",`,
		`      "` + strings.Repeat("k", 60) + `"…(9,886 characters)…"` + strings.Repeat("k", 60) + `": "after a long key",`,
		`      "evil\u001b]52;c;ZXZpbA==\u0007\u202ekey": "v\"\n  \"zz_last\": \"forged\"",`,
		`      "zz_last": "the end"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("latch approve does not show %q", want)
		}
	}
	for _, bad := range []string{"MIDDLE", "KEYMID", "\x1b]52", "\u202e", "\n  \"zz_last\": \"forged\""} {
		if strings.Contains(out, bad) {
			t.Errorf("latch approve shows %q", bad)
		}
	}
	if t.Failed() {
		t.Logf("latch approve wrote:\n%s", out)
	}
	full := decideOutput(t, r, h.InvocationID, "--full")
	for _, want := range []string{"  arguments  6 keys\n", `"aa_content": "` + args["aa_content"].(string) + `",`,
		`"` + strings.Repeat("k", 5_000) + "KEYMID", `"zz_last": "the end"`} {
		if !strings.Contains(full, want) {
			t.Errorf("latch approve --full does not show %.80q", want)
		}
	}

	list := r.run("", "approvals")
	row := ""
	for _, l := range strings.Split(list.stdout, "\n") {
		if strings.HasPrefix(l, h.InvocationID) {
			row = l
		}
	}
	for _, want := range []string{`{"aa_content": "xxxxxxxxxxxxxxxxxxxx"…(49,966 characters)…"yyyyyyyyyyyyyyyyyyyy", "entities": [`,
		`"path": "` + args["path"].(string) + `"`, `"evil\u001b]52;c;ZXZpbA==\u0007\u202ekey": `, `"zz_last": "the end"}`} {
		if !strings.Contains(row, want) {
			t.Errorf("latch approvals' row does not show %.120q:\n%.2000s", want, row)
		}
	}
	if strings.Contains(list.stdout, "MIDDLE") || strings.Contains(list.stdout, "\x1b") {
		t.Errorf("latch approvals shows what it should elide or escape")
	}
	if all := r.run("", "approvals", "--full"); !strings.Contains(all.stdout, args["aa_content"].(string)) || !strings.Contains(all.stdout, `"zz_last": "the end"`) {
		t.Errorf("latch approvals --full does not show every value whole (exit %d): %.300s", all.code, all.stderr)
	}
	if n := r.memCalls("create_entities"); n != 0 {
		t.Errorf("the call ran (%d times) with nothing approved", n)
	}
}
