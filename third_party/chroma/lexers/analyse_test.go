package lexers

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
)

// rpgleText is a text RPGLE's analyser claims.
const rpgleText = "**FREE\ndcl-s x int(10);\n"

// TestLazyAnalyseIsEager: before any load, Analyse picks what a registry
// built at once picks (an XML lexer with an <analyse> element, one given
// an analyser after a lookup by name as dns.go does, a lexer given to
// Register, and the first in order among equal scores, where a lexer given
// to Register takes the place of the XML lexer of its name) while parsing only
// the XML lexers that can score above zero; after the load it still does.
func TestLazyAnalyseIsEager(t *testing.T) {
	dnsScore := func(text string) float32 {
		if strings.Contains(text, "$ORIGIN") {
			return 0.9
		}
		return 0
	}
	// As high as bash's for a shebang: bash, earlier, must win the tie.
	standScore := func(text string) float32 {
		if strings.Contains(text, "standin") || strings.Contains(text, "#!/bin/bash") {
			return 1
		}
		return 0
	}
	want := eager(t)
	want.Get("dns").SetAnalyser(dnsScore)
	want.Get("Standin").SetAnalyser(standScore)
	// The stand-in HTML takes html.xml's place, before rpgle.xml, and
	// ties with RPGLE: it must win, as it does once loaded.
	rpgle := want.Get("RPGLE").(chroma.Analyser)
	if rpgle.AnalyseText(rpgleText) <= 0 {
		t.Fatalf("RPGLE does not claim %q", rpgleText)
	}
	htmlScore := func(text string) float32 {
		if strings.Contains(text, "**FREE") {
			return rpgle.AnalyseText(text)
		}
		return 0
	}
	want.Get("HTML").SetAnalyser(htmlScore)
	x := &xmlLexers{parsed: map[string]chroma.Lexer{}}
	got := chroma.NewLazyLexerRegistry(x)
	for _, l := range standIns() {
		got.Register(l)
	}
	got.Get("dns").SetAnalyser(dnsScore)
	got.Get("Standin").SetAnalyser(standScore)
	got.Get("HTML").SetAnalyser(htmlScore)
	texts := []string{"", "plain words\n", "#!/bin/bash\necho hi\n", "#!/bin/sh\nls\n",
		"#include <stdio.h>\nint main(void) { return 0; }\n", "#include <iostream>\nusing namespace std;\n",
		"extends Node\nfunc _ready():\n\tpass\n", rpgleText, "$ORIGIN example.com.\n",
		"standin text\n", "<?php echo 1; ?>", "package main\n"}
	compare := func(when string) {
		t.Helper()
		for _, text := range texts {
			if g, w := describe(got.Analyse(text)), describe(want.Analyse(text)); g != w {
				t.Errorf("%s: Analyse(%q) = %s, want %s", when, text, g, w)
			}
		}
	}
	compare("before the load")
	if len(got.Lexers) != 0 {
		t.Errorf("Analyse loaded the registry: %d lexers", len(got.Lexers))
	}
	if n := len(x.parsed); n > len(xmlAnalysed)+1 {
		t.Errorf("Analyse parsed %d XML lexers, want at most the %d with an analyser and dns", n, len(xmlAnalysed))
	}
	got.Names(false) // loads all
	compare("after the load")
}
