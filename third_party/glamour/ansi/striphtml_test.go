package ansi

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/microcosm-cc/bluemonday"
)

// stripPieces are what the random inputs are made of: tags of the kinds
// the strict policy treats apart (script and style, the elements whose
// content it skips, any other), ill-formed and upper-case ones, comments,
// doctypes, entities, and text, some of it not ASCII.
var stripPieces = []string{
	"<b>", "</b>", "<p class=\"x\">", "</p>", "<br/>", "<br>", "<img src=x onerror=alert(1)>",
	"<script>", "</script>", "<SCRIPT>", "</ScRiPt>", "<style>", "</style>", "<style type=text/css>",
	"<iframe>", "</iframe>", "<title>", "</title>", "<object>", "</object>", "<noscript>", "</noscript>",
	"<frame/>", "<nostyle>", "</nostyle>", "<ſcript>", "</ſcript>", "<scrİpt>", "<div\u00a0x>",
	"<!-- c -->", "<!--", "-->", "<!DOCTYPE html>", "<?xml?>", "<![CDATA[x]]>", "</>", "<", ">", "</",
	"&amp;", "&lt;", "&gt;", "&quot;", "&#39;", "&nbsp;", "&#x1F600;", "&bogus;", "&", "\"", "'",
	"text", " ", "\n", "\t", "héllo", "日本", "a < b", "x>y", "<a href=\"javascript:x\">link</a>",
	"<textarea>", "</textarea>", "<plaintext>", "<xmp>", "</xmp>", "<math>", "<svg><script>", "\x00",
}

func randomHTML(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(stripPieces[r.IntN(len(stripPieces))])
	}
	return b.String()
}

// TestStripHTMLIsBluemondays: stripHTML returns what bluemonday's strict
// policy does, byte for byte, on 50,000 random inputs and on the HTML a
// markdown reply holds.
func TestStripHTMLIsBluemondays(t *testing.T) {
	p := bluemonday.StrictPolicy()
	r := rand.New(rand.NewPCG(1, 2))
	cases := []string{"", "  ", "<b>bold</b> & <i>it</i>", "<script>alert('x')</script>after",
		"<details><summary>More</summary>hidden</details>", "a<br>b", "<!-- note -->x", "<kbd>Ctrl</kbd>+<kbd>C</kbd>"}
	for range 50_000 {
		cases = append(cases, randomHTML(r))
	}
	for _, s := range cases {
		if got, want := stripHTML(s), p.Sanitize(s); got != want {
			t.Fatalf("stripHTML(%q) = %q, bluemonday's strict policy gives %q", s, got, want)
		}
	}
}

// FuzzStripHTML compares stripHTML with bluemonday's strict policy on
// any input (go test -fuzz FuzzStripHTML ./ansi/).
func FuzzStripHTML(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(randomHTML(r))
	}
	p := bluemonday.StrictPolicy()
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := stripHTML(s), p.Sanitize(s); got != want {
			t.Fatalf("stripHTML(%q) = %q, bluemonday's strict policy gives %q", s, got, want)
		}
	})
}
