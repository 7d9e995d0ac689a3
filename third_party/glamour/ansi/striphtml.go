package ansi

import (
	"bytes"
	"io"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// stripHTML is what bluemonday.StrictPolicy().Sanitize(s) returns (v1.0.27;
// see PATCH.md): s's text with every element, comment and doctype taken
// out, the text of a script or style element, and of the elements whose
// content the policy skips (iframe, object, title and others), left out,
// and the rest HTML-escaped, as the same tokenizer reads it. A policy that
// allows no element takes these few paths of bluemonday's sanitizer; the
// sanitizer's package, with its CSS parser, compiles about 1 MB of
// regular expressions and tables in package init, in every process.
// striphtml_test.go checks it against bluemonday on random input.
func stripHTML(s string) string {
	if strings.TrimSpace(s) == "" {
		return s
	}
	var (
		out      bytes.Buffer
		skip     bool   // inside an element whose content is skipped
		skipping int64  // how many of those are open
		recent   string // the element that most recently started
	)
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		if z.Next() == html.ErrorToken {
			if z.Err() == io.EOF {
				return out.String()
			}
			return ""
		}
		t := z.Token()
		switch t.Type {
		case html.StartTagToken:
			recent = elementName(t.Data)
			if recent == "script" || recent == "style" {
				continue
			}
			if skipContent[t.Data] {
				skip = true
				skipping++
			}
		case html.EndTagToken:
			name := elementName(t.Data)
			if recent == name {
				recent = ""
			}
			if name == "script" || name == "style" {
				continue
			}
			if skipContent[t.Data] {
				skipping--
				if skipping == 0 {
					skip = false
				}
			}
		case html.TextToken:
			if !skip && recent != "script" && recent != "style" {
				out.WriteString(t.String())
			}
		case html.SelfClosingTagToken, html.CommentToken, html.DoctypeToken:
		default:
			return "" // bluemonday fails on a token it does not know
		}
	}
}

// skipContent is the elements whose content bluemonday's policies skip
// unless told otherwise (addDefaultSkipElementContent).
var skipContent = map[string]bool{
	"frame": true, "frameset": true, "iframe": true, "noembed": true,
	"noframes": true, "noscript": true, "nostyle": true, "object": true,
	"script": true, "style": true, "title": true,
}

// elementName is bluemonday's normaliseElementName: the name lower-cased,
// anything not ASCII quoted.
func elementName(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(strings.ToLower(strconv.QuoteToASCII(s)), `"`), `"`)
}
