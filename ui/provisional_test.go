package ui

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestProvisional: the unfinished block is cut or closed where a construct
// is open, so that it renders as its finished form will.
func TestProvisional(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain words", "plain words"},
		{"a **bold te", "a **bold te**"},
		{"a **bold text**", "a **bold text**"},
		{"a **", "a"},
		{"- **", "-"},
		{"- **and", "- **and**"},
		{"a *it and **bo", "a *it and **bo***"},
		{"call `keep", "call `keep`"},
		{"call `", "call"},
		{"`a` and `b *c", "`a` and `b *c`"},
		{"snake_case and _it", "snake_case and _it_"},
		{"2 * 3 = 6", "2 * 3 = 6"},
		{"para\n```g", "para\n"},
		{"para\n-", "para\n"},
		{"para\n12.", "para\n"},
		{"## Ti", "## Ti"},
		{"#", ""},
		{"| Name | Tok", ""},
		{"| Name | Tokens |\n|---", ""},
		{"intro\n| Name | Tokens |\n", "intro\n"},
		{"| Name | Tokens |\n|---|---|\n| up", "| Name | Tokens |\n|---|---|\n"},
		{"| Name | Tokens |\n|---|---|\n| up | 1 |\n", "| Name | Tokens |\n|---|---|\n| up | 1 |\n"},
		{`escaped \*star`, `escaped \*star`},
		{"runs **across\nlines and", "runs **across\nlines and**"},
		{"- item\n- **b", "- item\n- **b**"},
		{"runs **across\n", "runs **across**"},
		{"a ~~str", "a ~~str~~"},
		{"a [link](https://exa", "a [link](https://exa)"},
		{"a [li", "a [li]()"},
		{"a [", "a"},
		{"see [1] and", "see [1] and"},
		{"a <https://exa", "a <https://exa>"},
		{"a < b", "a < b"},
	} {
		if got := provisional(c.in, false); got != c.want {
			t.Errorf("provisional(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := provisional("```go\nfunc f() {\n``", true); got != "```go\nfunc f() {\n" {
		t.Errorf("a closing fence's start is drawn: %q", got)
	}
	if got := provisional("```go\nfunc f() {\n\tx := `a", true); got != "```go\nfunc f() {\n" {
		t.Errorf("an incomplete line of code is drawn: %q", got)
	}
}

// TestProvisionalAnyText: provisional takes any text (markers in every
// order, cut anywhere) without failing, and only ever cuts the text or
// adds closing markers at its end.
func TestProvisionalAnyText(t *testing.T) {
	parts := []string{"*", "**", "_", "`", "~~", "[", "]", "(", ")", "<http", ">", "\\", "\n", " ", "word", "|", "- ", "1. ", "```", "#"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for n := rng.IntN(30); n > 0; n-- {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		in := b.String()
		for _, fence := range []bool{false, true} {
			out := provisional(in, fence)
			kept := strings.TrimRight(out, "*_`~])>(")
			if !strings.HasPrefix(in, kept) && !strings.HasPrefix(in, strings.TrimRight(kept, " \n")) {
				t.Fatalf("provisional(%q, %v) = %q: not the text's start and closers", in, fence, out)
			}
		}
	}
}
