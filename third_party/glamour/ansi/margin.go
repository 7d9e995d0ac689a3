package ansi

import (
	"fmt"
	"io"
	"strings"

	"github.com/muesli/reflow/indent"
	"github.com/muesli/reflow/padding"
	"github.com/muesli/termenv"
)

// MarginWriter is a Writer that applies indentation and padding around
// whatever you write to it.
type MarginWriter struct {
	w  io.Writer
	pw *padding.Writer
	iw *indent.Writer
}

// NewMarginWriter returns a new MarginWriter.
func NewMarginWriter(ctx RenderContext, w io.Writer, rules StyleBlock) *MarginWriter {
	bs := ctx.blockStack

	var indentation uint
	var margin uint
	if rules.Indent != nil {
		indentation = *rules.Indent
	}
	if rules.Margin != nil {
		margin = *rules.Margin
	}

	// latch: the pad cell and the indent token are styled once, not at
	// every cell (renderText is deterministic: the bytes are the same).
	var pad *string
	pw := padding.NewWriterPipe(w, bs.Width(ctx), func(_ io.Writer) {
		if pad == nil {
			s := styledText(ctx.options.ColorProfile, rules.StylePrimitive, " ")
			pad = &s
		}
		_, _ = io.WriteString(w, *pad)
	})

	ic := " "
	if rules.IndentToken != nil {
		ic = *rules.IndentToken
	}
	var tok *string
	iw := indent.NewWriterPipe(pw, indentation+margin, func(_ io.Writer) {
		if tok == nil {
			s := styledText(ctx.options.ColorProfile, bs.Parent().Style.StylePrimitive, ic)
			tok = &s
		}
		_, _ = io.WriteString(w, *tok)
	})

	return &MarginWriter{
		w:  w,
		pw: pw,
		iw: iw,
	}
}

func (w *MarginWriter) Write(b []byte) (int, error) {
	n, err := w.iw.Write(b)
	if err != nil {
		return 0, fmt.Errorf("glamour: error writing bytes: %w", err)
	}
	return n, nil
}

// styledText is what renderText writes for s (latch).
func styledText(p termenv.Profile, rules StylePrimitive, s string) string {
	var b strings.Builder
	renderText(&b, p, rules, s)
	return b.String()
}
