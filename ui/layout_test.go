package ui

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"latch/session/ollamatest"
)

// TestThoughtForOneWord: a one-word thought is "1 word", not "1 words".
func TestThoughtForOneWord(t *testing.T) {
	h := newHarness(t, 120, 30)
	h.srv.Script(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("hmm"), ollamatest.Tokens("Yes.")...)})
	h.send("a")
	if v := h.m.View(); !strings.Contains(v, "┊ thought for 1 word · ctrl+t shows") {
		t.Fatalf("the collapsed thinking line:\n%s", v)
	}
}

// TestWrappedErrorHasNoBlankLine: Ollama unreachable, at 120 columns the
// error wraps before "or point" with no blank line inside it.
func TestWrappedErrorHasNoBlankLine(t *testing.T) {
	m := unreachableModel(t, "http://127.0.0.1:11434", 120)
	var rows []string
	for _, l := range strings.Split(m.View(), "\n") {
		rows = append(rows, strings.TrimRight(ansi.Strip(l), " "))
	}
	start := slices.IndexFunc(rows, func(r string) bool { return strings.HasPrefix(r, "✗ cannot reach Ollama") })
	if start < 0 || start+1 >= len(rows) {
		t.Fatalf("no error:\n%s", m.View())
	}
	if rows[start+1] != "  or point OLLAMA_HOST / --host at it" {
		t.Errorf("the error wraps as\n%q\n%q\nwant its last words on the next row", rows[start], rows[start+1])
	}
}

// TestEmailShownOnce: an e-mail address in a reply, bare or in angle
// brackets, is shown once, not followed by "mailto:" and itself again; a
// web link keeps its URL.
func TestEmailShownOnce(t *testing.T) {
	r := newMDRenderer("dark")
	got := strings.Join(r.render("Write to ada@example.org or <bob@example.org>; docs at [the site](https://example.org).", 120), "\n")
	if want := "  Write to ada@example.org or bob@example.org; docs at the site https://example.org."; got != want {
		t.Errorf("rendered\n%q\nwant\n%q", got, want)
	}
}

// TestTableSizedToContent: a table is as wide as its cells need, not the
// screen; one wider than the screen still wraps within it.
func TestTableSizedToContent(t *testing.T) {
	r := newMDRenderer("dark")
	lines := r.render("Themes:\n\n| theme | dark |\n|---|---|\n| nord | yes |\n| light | no |\n\nThat is all.", 120)
	want := []string{
		"  Themes:",
		"",
		"   theme | dark",
		"  -------|------",
		"   nord  | yes",
		"   light | no",
		"",
		"  That is all.",
	}
	if !slices.Equal(lines, want) {
		t.Errorf("rendered\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	wide := r.render("| words |\n|---|\n| "+strings.Repeat("word ", 40)+"|", 80)
	for _, l := range wide {
		if w := ansi.StringWidth(l); w > 80 {
			t.Errorf("a row %d wide at 80: %q", w, l)
		}
	}
	if len(wide) < 4 {
		t.Errorf("the wide table did not wrap:\n%s", strings.Join(wide, "\n"))
	}
}
