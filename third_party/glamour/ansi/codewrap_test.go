package ansi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"
)

func TestWrapCodeExamples(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  string
	}{
		{"abc def ghi", 7, "abc def\nghi"},
		{"abc def ghi", 5, "abc \ndef \nghi"},
		{"abcdefghij", 4, "abcd\nefgh\nij"},
		{"    x := aaaaaaaaaaaa", 10, "    x := \naaaaaaaaaa\naa"},
		{"a   b", 2, "a \nb"},
		{"short\n\nlonger line here\n", 8, "short\n\nlonger \nline \nhere\n"},
		{"\x1b[31mred words\x1b[0m \x1b[32mgreen\x1b[0m", 6, "\x1b[31mred \nwords\x1b[0m \n\x1b[32mgreen\x1b[0m"},
		{"日本語のテキスト", 5, "日本\n語の\nテキ\nスト"},
		{"ab日", 3, "ab\n日"},
	} {
		if got := wrapCode(c.in, c.width); got != c.want {
			t.Errorf("wrapCode(%q, %d) = %q, want %q", c.in, c.width, got, c.want)
		}
	}
}

// TestWrapCodeKeepsTheCode wraps random highlighted lines (words, runs of
// spaces, wide characters, combining marks, colour codes) at random widths:
// no row is wider than the width but for one character wider than it; the
// colour codes are all there, in order; the text is the same but for
// spaces left out where a row was broken; no continuation starts with a
// space.
func TestWrapCodeKeepsTheCode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", "def", "x", " ", "  ", "    ", "日", "é", "e\u0301", "\x1b[38;5;173m", "\x1b[0m", "\x1b[1;31m", "(", ")", "--", "\n"}
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := rng.IntN(40); k > 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		in, width := b.String(), 1+rng.IntN(12)
		got := wrapCode(in, width)
		if codes(got) != codes(in) {
			t.Fatalf("wrapCode(%q, %d) = %q: the colour codes changed", in, width, got)
		}
		for _, row := range strings.Split(got, "\n") {
			if w := ansi.StringWidth(row); w > width && uniseg.GraphemeClusterCount(ansi.Strip(row)) > 1 {
				t.Fatalf("wrapCode(%q, %d) = %q: a row %d cells wide", in, width, got, w)
			}
		}
		// The text: the breaks wrapCode made are where the output has a
		// newline the input has not; after one, the input's spaces may
		// be left out.
		src, out := []rune(ansi.Strip(in)), []rune(ansi.Strip(got))
		i, j := 0, 0
		for j < len(out) {
			switch {
			case i < len(src) && src[i] == out[j]:
				i, j = i+1, j+1
			case out[j] == '\n':
				j++
				if j < len(out) && out[j] == ' ' {
					t.Fatalf("wrapCode(%q, %d) = %q: a continuation starts with a space", in, width, got)
				}
				for i < len(src) && src[i] == ' ' {
					i++
				}
			default:
				t.Fatalf("wrapCode(%q, %d) = %q: the text changed at %q", in, width, got, string(out[j:]))
			}
		}
		if i != len(src) {
			t.Fatalf("wrapCode(%q, %d) = %q: text lost: %q", in, width, got, string(src[i:]))
		}
	}
}

// codes is the escape sequences of s, in order.
func codes(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\x1b' {
			n := escapeLen(s[i:])
			b.WriteString(s[i : i+n])
			i += n - 1
		}
	}
	return b.String()
}

func TestCodeTooWide(t *testing.T) {
	for _, c := range []struct {
		code  string
		width int
		want  bool
	}{
		{"short\nlines\n", 5, false},
		{"short\nlonger\n", 5, true},
		{"日本語\n", 5, true},
		{"日本\n", 4, false},
		{"é\u0301é\n", 2, false},
	} {
		if got := codeTooWide(c.code, c.width); got != c.want {
			t.Errorf("codeTooWide(%q, %d) = %v, want %v", c.code, c.width, got, c.want)
		}
	}
}
