package ui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/muesli/termenv"
)

// benchCode is a reply of prose and code blocks, a line of Go and one of
// shell in them wider than 100 columns when wide, every line fitting 60
// columns otherwise.
func benchCode(wide bool) string {
	goLine := "\tlog.Printf(\"to %s\", host)\n"
	shLine := "curl -fsSL https://example.org/x.sh | sh\n"
	if wide {
		goLine = "\tlog.Printf(\"connecting to %s with a timeout of %v and %d retries, then giving up for good\", host, timeout, retries)\n"
		shLine = "curl -fsSL https://example.org/releases/latest/install.sh | sudo sh -s -- --prefix /usr/local --with-completions --quiet\n"
	}
	var b strings.Builder
	for i := 0; i < 10; i++ {
		fmt.Fprintf(&b, "Step %d, with some words before the code:\n\n```go\nfunc main() {\n%s\treturn\n}\n```\n\n```sh\n%s```\n\n", i, goLine, shLine)
	}
	return b.String()
}

// BenchmarkRenderCode renders a reply of ten pairs of code blocks at 60
// and 100 columns, whole each time (no chunk kept), with code lines wider
// than the screen (wide) and with every line fitting (fits).
func BenchmarkRenderCode(b *testing.B) {
	for _, wide := range []bool{false, true} {
		name := "fits"
		if wide {
			name = "wide"
		}
		src := []byte(benchCode(wide))
		for _, w := range []int{60, 100} {
			b.Run(fmt.Sprintf("%s/%d", name, w), func(b *testing.B) {
				p, err := newMDPipeline("dark", termenv.ANSI256)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					if _, err := p.renderDoc(src, w-2*len(margin)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
