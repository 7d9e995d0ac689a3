package ui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2/quick"
)

// TestCachedTTYWritesWhatChromaWrites: code highlighted with the kept
// escape sequences is byte for byte what chroma's own 256-colour
// formatter writes, in several styles and languages, with CRLF, blank
// and unterminated lines, twice (the second time from the cache). The
// styles have no colour equally near two palette colours, of which
// chroma's own formatter picks either at random.
func TestCachedTTYWritesWhatChromaWrites(t *testing.T) {
	sources := map[string]string{
		"go":     "package main\n\nimport \"fmt\"\n\n// main says hi.\nfunc main() {\n\tfmt.Println(\"hi\", 42, 'x')\n}\n",
		"python": "def f(x):\r\n    \"\"\"doc\r\n    string\"\"\"\r\n    return x ** 2  # square\r\n\r\n",
		"bash":   "for i in 1 2; do echo \"$i\"; done\r\r\nexit 0",
		"json":   "{\"a\": [1, 2.5, true, null], \"b\": \"multi\\nline\"}",
		"":       "plain text with no language\n\n  indented\n",
	}
	for _, style := range []string{"monokai", "github", "dracula", "swapoff"} {
		for lang, src := range sources {
			var want strings.Builder
			if err := quick.Highlight(&want, src, lang, "terminal256", style); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				var got strings.Builder
				if err := quick.Highlight(&got, src, lang, chromaFormatter, style); err != nil {
					t.Fatal(err)
				}
				if got.String() != want.String() {
					t.Fatalf("%s in %s:\n got %q\nwant %q", lang, style, got.String(), want.String())
				}
			}
		}
	}
}
