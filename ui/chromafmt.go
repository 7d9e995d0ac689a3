package ui

import (
	"io"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/formatters"
)

// Code blocks are highlighted by chroma's 256-colour formatter, which
// works out its escape sequence for each of the style's token types
// again at every code block it formats: a search of the 256-colour
// palette for each colour of the style, a tenth of a streamed reply's
// CPU. cachedTTY is that formatter with the sequences kept for each
// style, learnt from the formatter itself: what it writes, byte for byte.
//
// Kept, they are also the same at every block: chroma picks between two
// palette colours equally near a style's colour in map order, at random
// each time (glamour's dark comment grey, #676767, is 241 or 242), so a
// block drawn while it streamed could come out in another colour when
// the reply ended, and be written again.

// chromaFormatter is the name glamour is given for cachedTTY.
const chromaFormatter = "latch-terminal256"

func init() {
	formatters.Register(chromaFormatter, &cachedTTY{inner: formatters.TTY256, themes: map[*chroma.Style]map[chroma.TokenType]string{}})
}

// cachedTTY formats as inner, a chroma terminal formatter, does, with the
// escape sequence of each token type of a style learnt once.
type cachedTTY struct {
	inner  chroma.Formatter
	mu     sync.Mutex
	themes map[*chroma.Style]map[chroma.TokenType]string
}

// Format writes the tokens of it in style's colours.
func (c *cachedTTY) Format(w io.Writer, style *chroma.Style, it chroma.Iterator) error {
	theme, err := c.theme(style)
	if err != nil {
		return err
	}
	for token := it(); token != chroma.EOF; token = it() {
		// The lookup of chroma's indexed formatters.
		clr, ok := theme[token.Type]
		if !ok {
			clr, ok = theme[token.Type.SubCategory()]
			if !ok {
				clr, ok = theme[token.Type.Category()]
				if !ok {
					clr, ok = theme[chroma.Text]
					if !ok {
						clr = theme[chroma.Background]
					}
				}
			}
		}
		writeToken(w, clr, token.Value)
	}
	return nil
}

// probe is the text of each token the theme is learnt from.
const probe = "x"

// theme is the escape sequence inner writes before a token of each of
// style's types: learnt from inner's output for one token of each.
func (c *cachedTTY) theme(style *chroma.Style) (map[chroma.TokenType]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.themes[style]; ok {
		return t, nil
	}
	types := style.Types()
	i := 0
	var b strings.Builder
	err := c.inner.Format(&b, style, func() chroma.Token {
		if i == len(types) {
			return chroma.EOF
		}
		i++
		return chroma.Token{Type: types[i-1], Value: probe}
	})
	if err != nil {
		return nil, err
	}
	out := b.String()
	t := make(map[chroma.TokenType]string, len(types))
	for _, tt := range types {
		// Each token is written as its sequence, the text and a reset,
		// or as the text alone; no sequence holds an x.
		j := strings.Index(out, probe)
		if j < 0 {
			return nil, io.ErrUnexpectedEOF
		}
		t[tt], out = out[:j], out[j+len(probe):]
		if t[tt] != "" {
			out = strings.TrimPrefix(out, reset)
		}
	}
	c.themes[style] = t
	return t, nil
}

// reset is what chroma's terminal formatters end a styled token's line with.
const reset = "\033[0m"

// writeToken writes text as chroma's terminal formatters do: each line of
// it (without its line end, \n or \r\n) preceded by the formatting and
// followed by a reset, in the same writes.
func writeToken(w io.Writer, formatting string, text string) {
	if formatting == "" {
		_, _ = io.WriteString(w, text)
		return
	}
	after := 0
	for from := 0; ; {
		nl := strings.IndexByte(text[from:], '\n')
		if nl < 0 {
			break
		}
		end := from + nl + 1
		start := end - 1
		if start > after && text[start-1] == '\r' {
			start--
		}
		_, _ = io.WriteString(w, formatting)
		_, _ = io.WriteString(w, text[after:start])
		_, _ = io.WriteString(w, reset)
		_, _ = io.WriteString(w, text[start:end])
		after, from = end, end
	}
	if after < len(text) {
		_, _ = io.WriteString(w, formatting)
		_, _ = io.WriteString(w, text[after:])
		_, _ = io.WriteString(w, reset)
	}
}
