package ansi

import (
	"bytes"
	"io"
	"math/rand"
	"strings"
	"testing"

	"github.com/muesli/reflow/indent"
	"github.com/muesli/reflow/padding"
	"github.com/muesli/termenv"
)

// TestMarginWriterIsReflowsPipe checks that MarginWriter writes what
// glamour v1.0.0's pipe of reflow's indent and padding writers wrote, for
// random text, escape sequences (whole, cut, odd) and runes, written in
// random pieces.
func TestMarginWriterIsReflowsPipe(t *testing.T) {
	pieces := []string{"a", "word", " ", "\n", "\n", "\x1b[38;5;252m", "\x1b[0m", "\x1b[1m",
		"\x1b[38;5;228;48;5;63;1m", "\x1b", "[", "@", "m", "0", "é", "世界", "\xff", "│ ", "\x1b[0", "\t", "\x1b]8;;x\x07"}
	rng := rand.New(rand.NewSource(1))
	for n := range 20000 {
		var src strings.Builder
		for range rng.Intn(40) {
			src.WriteString(pieces[rng.Intn(len(pieces))])
		}
		width, ind := uint(rng.Intn(30)), uint(rng.Intn(4))
		profile := termenv.ANSI256
		color := []*string{nil, ptr("252")}[rng.Intn(2)]
		rules := StylePrimitive{Color: color}
		parent := StylePrimitive{Color: []*string{nil, ptr("244")}[rng.Intn(2)]}
		stack := &BlockStack{{Style: StyleBlock{StylePrimitive: parent}}, {Style: StyleBlock{StylePrimitive: rules}}}
		ic := []string{" ", "│ "}[rng.Intn(2)]
		pad, tok := styledText(profile, rules, " "), styledText(profile, parent, ic)

		var want bytes.Buffer
		pw := padding.NewWriterPipe(&want, width, func(io.Writer) { _, _ = io.WriteString(&want, pad) })
		iw := indent.NewWriterPipe(pw, ind, func(io.Writer) { _, _ = io.WriteString(&want, tok) })
		var got bytes.Buffer
		mw := &MarginWriter{w: &got, width: int(width), indent: int(ind),
			profile: profile, rules: rules, stack: stack, ic: ic}

		b := []byte(src.String())
		for len(b) > 0 {
			k := 1 + rng.Intn(len(b))
			if _, err := iw.Write(b[:k]); err != nil {
				t.Fatal(err)
			}
			if _, err := mw.Write(b[:k]); err != nil {
				t.Fatal(err)
			}
			b = b[k:]
		}
		if got.String() != want.String() {
			t.Fatalf("case %d: %q (width %d, indent %d):\n got %q\nwant %q", n, src.String(), width, ind, got.String(), want.String())
		}
	}
}

func ptr(s string) *string { return &s }
