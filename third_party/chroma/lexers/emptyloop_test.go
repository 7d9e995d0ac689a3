package lexers

import (
	"strings"
	"testing"
	"time"
)

// A lexer whose rules match nothing, push and pop at one place without
// end (Jungle's, on a line its "instruction" state cannot read) used to
// never return: a code block a model labelled "jungle" froze the chat.
// It now ends, with every character of the text in its tokens, and the
// text a lexer reads to the end is tokenised as before.
func TestEmptyMatchLoopEnds(t *testing.T) {
	for _, c := range []struct{ lexer, text string }{
		{"jungle", "#!/usr/bin/env python\nprint(1)\n"},
		{"jungle", "!\n!\n"},
		{"jungle", "project.manifest = manifest.xml\n"},
		{"go", "package main\n\nfunc main() {}\n"},
	} {
		done := make(chan string, 1)
		go func() {
			it, err := Get(c.lexer).Tokenise(nil, c.text)
			if err != nil {
				done <- "error: " + err.Error()
				return
			}
			var b strings.Builder
			for _, tok := range it.Tokens() {
				b.WriteString(tok.Value)
			}
			done <- b.String()
		}()
		select {
		case got := <-done:
			if got != c.text {
				t.Errorf("%s: the tokens hold %q, want %q", c.lexer, got, c.text)
			}
		case <-time.After(time.Minute): // a hang's bound, not a measure
			t.Fatalf("%s: tokenising %q never ended", c.lexer, c.text)
		}
	}
}
