package sanitize

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// checkSafe fails t if out contains anything a terminal could interpret as
// control: ESC, BEL, other C0 controls except '\n' and '\t', DEL, C1 controls
// (as UTF-8 or as raw bytes), bidi controls, or invalid UTF-8.
func checkSafe(t testing.TB, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Errorf("Text(%q) = %q: invalid UTF-8", in, out)
	}
	for i := 0; i < len(out); i++ {
		c := out[i]
		if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			t.Errorf("Text(%q) = %q: control byte %#02x at %d", in, out, c, i)
		}
	}
	for i, r := range out {
		if r >= 0x80 && r <= 0x9f {
			t.Errorf("Text(%q) = %q: C1 control %U at %d", in, out, r, i)
		}
		if isBidi(r) {
			t.Errorf("Text(%q) = %q: bidi control %U at %d", in, out, r, i)
		}
	}
}

// isBidi is written independently of the package's badRune on purpose.
func isBidi(r rune) bool {
	switch r {
	case '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', // LRE RLE PDF LRO RLO
		'\u2066', '\u2067', '\u2068', '\u2069', // LRI RLI FSI PDI
		'\u200e', '\u200f', '\u061c': // LRM RLM ALM
		return true
	}
	return false
}

// reference is a deliberately simple, slow implementation of Text used to
// check the fast one.
func reference(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"):
			// dropped; the '\n' follows
		case r == '\r':
			b.WriteRune('␍')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r < 0x20:
			b.WriteRune(0x2400 + r)
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f, isBidi(r):
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func referenceLine(s string) string {
	return strings.NewReplacer("\n", " ", "\t", " ").Replace(reference(s))
}

func TestTextAttacks(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"CSI clear screen and home", "ok\x1b[2J\x1b[Hpwned", "ok␛[2J␛[Hpwned"},
		{"CSI colour", "\x1b[31mred\x1b[0m", "␛[31mred␛[0m"},
		{"CSI cursor up and erase line", "safe\n\x1b[1A\x1b[2Kfake", "safe\n␛[1A␛[2Kfake"},
		{"OSC 52 clipboard, BEL terminated", "\x1b]52;c;ZWNobyBwd25lZA==\x07", "␛]52;c;ZWNobyBwd25lZA==␇"},
		{"OSC 52 clipboard, ST terminated", "\x1b]52;c;ZWNobyBwd25lZA==\x1b\\", "␛]52;c;ZWNobyBwd25lZA==␛\\"},
		{"OSC 8 hyperlink", "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\", "␛]8;;https://evil.example/␛\\docs␛]8;;␛\\"},
		{"OSC 0 title", "\x1b]0;owned\x07", "␛]0;owned␇"},
		{"OSC 2 title", "\x1b]2;owned\x1b\\", "␛]2;owned␛\\"},
		{"DCS", "\x1bP+q544e\x1b\\", "␛P+q544e␛\\"},
		{"DECRQSS title report", "\x1bP$q\"p\x1b\\", "␛P$q\"p␛\\"},
		{"C1 CSI as UTF-8", "a\u009b2Jb", "a\uFFFD2Jb"},
		{"C1 OSC as UTF-8", "\u009d52;c;QQ==\u009c", "\uFFFD52;c;QQ==\uFFFD"},
		{"C1 CSI as raw byte", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"C1 OSC as raw byte", "\x9d0;owned\x9c", "\uFFFD0;owned\uFFFD"},
		{"C1 NEL", "x\u0085y", "x\uFFFDy"},
		{"BEL alone", "\x07", "␇"},
		{"BEL spam", "ding\x07\x07\x07", "ding␇␇␇"},
		{"backspace overwrite", "abc\bX", "abc␈X"},
		{"backspace hides rm", "ls\b\b\b\b\b\b\brm -rf ~", "ls␈␈␈␈␈␈␈rm -rf ~"},
		{"CR overwrite", "approve: no\ryes", "approve: no␍yes"},
		{"CR at end", "abc\r", "abc␍"},
		{"CRLF kept as newline", "a\r\nb\r\n", "a\nb\n"},
		{"CR CR LF", "a\r\r\nb", "a␍\nb"},
		{"Trojan Source RLO", "access = \"user\u202e \u2066// admin\u2069 \u2066\"", "access = \"user\uFFFD \uFFFD// admin\uFFFD \uFFFD\""},
		{"bidi embeddings", "\u202a\u202b\u202c\u202d", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"bidi isolates", "\u2066\u2067\u2068\u2069", "\uFFFD\uFFFD\uFFFD\uFFFD"},
		{"bidi marks", "\u200e\u200f\u061c", "\uFFFD\uFFFD\uFFFD"},
		{"NUL", "a\x00b", "a␀b"},
		{"DEL", "a\x7fb", "a␡b"},
		{"vertical tab and form feed", "a\vb\fc", "a␋b␌c"},
		{"SI/SO charset switch", "\x0e\x0f", "␎␏"},
		{"ESC at end", "text\x1b", "text␛"},
		{"invalid UTF-8", "a\xffb\xc3", "a\uFFFDb\uFFFD"},
		{"overlong ESC", "\xc0\x9b[2J", "\uFFFD\uFFFD[2J"},
		{"surrogate", "\xed\xa0\x80", "\uFFFD\uFFFD\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Text(tt.in)
			if got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkSafe(t, tt.in, got)
			if again := Text(got); again != got {
				t.Errorf("not idempotent: Text(%q) = %q", got, again)
			}
			if ref := reference(tt.in); ref != got {
				t.Errorf("Text(%q) = %q, reference %q", tt.in, got, ref)
			}
			line := Line(tt.in)
			checkSafe(t, tt.in, line)
			if strings.ContainsAny(line, "\n\t") {
				t.Errorf("Line(%q) = %q contains newline or tab", tt.in, line)
			}
		})
	}
}

func TestTextPassThrough(t *testing.T) {
	tests := []string{
		"",
		"hello, world",
		"line one\nline two\n\tindented\n",
		"func main() {\n\tfmt.Println(\"hi\")\n}\n",
		"日本語のテキスト、中文文本、한국어 텍스트",
		"emoji 😀 👍🏽 🇺🇦 family 👨‍👩‍👧‍👦 (ZWJ)",
		"combining: e\u0301 a\u0308 \u0915\u094d\u0937",
		"Hebrew שלום and Arabic مرحبا",
		"zero width joiner\u200d and non-joiner\u200c",
		"already sanitised: ␛[31m ␇ ␍ ␡ \uFFFD",
		"latin-1 printable: ¡¢£ ÀÉÎÕÜ ÿ \u00a0nbsp",
		"max rune \U0010FFFF and private use \ue000",
		strings.Repeat("abcdefghijklmnopqrstuvwxyz0123456789 ", 200),
	}
	for _, in := range tests {
		if got := Text(in); got != in {
			t.Errorf("Text(%q) = %q, want unchanged", in, got)
		}
		checkSafe(t, in, in)
	}
}

func TestLine(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain name", "plain name"},
		{"a\nb", "a b"},
		{"a\tb", "a b"},
		{"a\r\nb", "a b"},
		{"a\n\n\tb", "a   b"},
		{"server\x1b]0;owned\x07", "server␛]0;owned␇"},
		{"err: \x1b[2K\rfake\n", "err: ␛[2K␍fake "},
		{"名前\u202e", "名前\uFFFD"},
	}
	for _, tt := range tests {
		got := Line(tt.in)
		if got != tt.want {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if ref := referenceLine(tt.in); ref != got {
			t.Errorf("Line(%q) = %q, reference %q", tt.in, got, ref)
		}
	}
}

// TestEveryRune checks each rune (and each single byte) on its own and
// embedded in printable ASCII, at offsets that exercise the 8-byte scan.
func TestEveryRune(t *testing.T) {
	check := func(s string) {
		got := Text(s)
		if want := reference(s); got != want {
			t.Fatalf("Text(%q) = %q, reference %q", s, got, want)
		}
		checkSafe(t, s, got)
		if got := Line(s); got != referenceLine(s) {
			t.Fatalf("Line(%q) = %q, reference %q", s, got, referenceLine(s))
		}
	}
	for c := range 256 {
		check(string([]byte{byte(c)}))
		check("0123456789a" + string([]byte{byte(c)}) + "bcdefghijk")
	}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		s := string(r)
		got := Text(s)
		bad := (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || isBidi(r)
		if !bad && got != s {
			t.Fatalf("Text(%q) = %q, want unchanged", s, got)
		}
		if bad && got == s {
			t.Fatalf("Text(%q) unchanged", s)
		}
		if r < 0x3000 || bad {
			check(s)
			check("0123456" + s + "789abcdefghij")
		}
	}
}

// TestScanOffsets puts one bad character at every offset of strings of many
// lengths, so that it lands in every lane of the 8-byte fast path and in the
// byte-at-a-time tail.
func TestScanOffsets(t *testing.T) {
	for _, bad := range []string{"\x1b", "\x00", "\x1f", "\x7f", "\r", "\n", "\x80", "\xff", "\u009b", "\u202e", "é"} {
		for n := 1; n <= 40; n++ {
			for at := 0; at < n; at++ {
				s := strings.Repeat("x", at) + bad + strings.Repeat("~", n-at-1)
				if got, want := Text(s), reference(s); got != want {
					t.Fatalf("Text(%q) = %q, want %q", s, got, want)
				}
				if got, want := Line(s), referenceLine(s); got != want {
					t.Fatalf("Line(%q) = %q, want %q", s, got, want)
				}
			}
		}
	}
}

func TestNoAllocWhenClean(t *testing.T) {
	plain := strings.Repeat("The quick brown fox jumps over the lazy dog. 狐狸 🦊\n", 80)
	if n := testing.AllocsPerRun(100, func() { _ = Text(plain) }); n != 0 {
		t.Errorf("Text on clean input: %v allocs, want 0", n)
	}
	oneLine := strings.ReplaceAll(plain, "\n", " ")
	if n := testing.AllocsPerRun(100, func() { _ = Line(oneLine) }); n != 0 {
		t.Errorf("Line on clean input: %v allocs, want 0", n)
	}
	// The result must be the very same string, not a copy.
	if got := Text(plain); unsafe.StringData(got) != unsafe.StringData(plain) {
		t.Error("Text on clean input returned a copy, want the input itself")
	}
}

func FuzzText(f *testing.F) {
	seeds := []string{
		"", "hello", "a\r\nb", "\r", "\x1b[2J\x1b[H", "\x1b]52;c;QQ==\x07",
		"\x1b]8;;http://x\x1b\\y\x1b]8;;\x1b\\", "\x9b\x9d\u009b\u009d",
		"\u202e\u2066\u2069", "abc\bX", "\x00\x7f", "\xff\xfe", "👨‍👩‍👧",
		"\xe2\x80", "\xe2\x80\xae", "\xc2", "\xc2\x9b",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		checkSafe(t, s, out)
		if again := Text(out); again != out {
			t.Errorf("not idempotent: Text(%q) = %q, Text of that = %q", s, out, again)
		}
		if ref := reference(s); out != ref {
			t.Errorf("Text(%q) = %q, reference %q", s, out, ref)
		}
		if printableOnly(s) && out != s {
			t.Errorf("printable Text(%q) = %q, want unchanged", s, out)
		}
		line := Line(s)
		checkSafe(t, s, line)
		if strings.ContainsAny(line, "\n\t") {
			t.Errorf("Line(%q) = %q contains newline or tab", s, line)
		}
		if want := strings.NewReplacer("\n", " ", "\t", " ").Replace(out); line != want {
			t.Errorf("Line(%q) = %q, want %q", s, line, want)
		}
	})
}

// printableOnly reports whether s is valid UTF-8 made only of graphic
// characters, spaces, newlines and tabs.
func printableOnly(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r != '\n' && r != '\t' && !unicode.IsGraphic(r) {
			return false
		}
	}
	return true
}

var sink string

func BenchmarkText(b *testing.B) {
	const size = 4096
	fill := func(unit string) string {
		s := strings.Repeat(unit, size/len(unit)+1)
		return strings.ToValidUTF8(s[:size], "")
	}
	cases := []struct{ name, in string }{
		{"plain-4KB", fill("The quick brown fox jumps over the lazy dog; func main() {\n\tfmt.Println(x)\n}\n")},
		{"unicode-4KB", fill("日本語のテキスト 😀 héllo wörld 👨‍👩‍👧 ")},
		{"escapes-4KB", fill("\x1b[31mred\x1b[0m text \x1b]52;c;QQ==\x07 ok\r\n\u202e bad\x9b ")},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.in)))
			b.ReportAllocs()
			for b.Loop() {
				sink = Text(c.in)
			}
		})
	}
	b.Run("line-plain-4KB", func(b *testing.B) {
		in := strings.NewReplacer("\n", " ", "\t", " ").Replace(cases[0].in)
		b.SetBytes(int64(len(in)))
		b.ReportAllocs()
		for b.Loop() {
			sink = Line(in)
		}
	})
}

func ExampleText() {
	fmt.Printf("%q\n", Text("copy this\x1b]52;c;cm0gLXJmIH4=\x07"))
	// Output: "copy this␛]52;c;cm0gLXJmIH4=␇"
}
