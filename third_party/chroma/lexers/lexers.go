package lexers

import (
	"embed"
	"io/fs"
	"slices"
	"sort"
	"strings"

	"github.com/alecthomas/chroma/v2"
)

//go:embed embedded
var embedded embed.FS

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// Patched for latch: the embedded XML lexers are parsed when first needed
// (chroma.NewLazyLexerRegistry), a lookup by name or alias parsing only
// the one file it needs (index.go), not all of them at init.
var GlobalLexerRegistry = chroma.NewLazyLexerRegistry(&xmlLexers{parsed: map[string]chroma.Lexer{}})

// xmlLexers are the embedded XML lexers, each parsed once, when first
// asked for. The registry calls its methods one at a time.
type xmlLexers struct {
	parsed map[string]chroma.Lexer // by file name
}

// All parses every embedded XML lexer, in the order of their file names.
func (x *xmlLexers) All() []chroma.Lexer {
	paths, err := fs.Glob(embedded, "embedded/*.xml")
	if err != nil {
		panic(err)
	}
	all := make([]chroma.Lexer, 0, len(paths))
	for _, path := range paths {
		all = append(all, x.file(strings.TrimPrefix(path, "embedded/")))
	}
	return all
}

// AllNames returns the names of the embedded XML lexers in All's order
// (xmlFileNames, index.go).
func (x *xmlLexers) AllNames() []string {
	names := make([]string, len(xmlFileNames))
	for i, f := range xmlFileNames {
		names[i] = f.key
	}
	return names
}

// Analysers parses, by their place in All, the embedded XML lexers with
// an <analyse> element (xmlAnalysed, index.go) and returns them with
// those parsed before (a Go file of this package may have given one an
// analyser, as dns.go does): no other can score a text above zero.
func (x *xmlLexers) Analysers() map[int]chroma.Lexer {
	some := map[int]chroma.Lexer{}
	for i, f := range xmlFileNames {
		if x.parsed[f.file] != nil || slices.Contains(xmlAnalysed[:], f.file) {
			some[i] = x.file(f.file)
		}
	}
	return some
}

// Matchers parses, by their place in All, the embedded XML lexers with a
// file name pattern (Filenames or AliasFilenames: xmlGlobs, index.go)
// keep takes.
func (x *xmlLexers) Matchers(keep func(glob string) bool) map[int]chroma.Lexer {
	some := map[int]chroma.Lexer{}
	for i, globs := range xmlGlobs {
		if slices.ContainsFunc(globs, keep) {
			some[i] = x.file(xmlFileNames[i].file)
		}
	}
	return some
}

// ByName parses the XML lexer registered last under key, in the names or
// the aliases (index.go).
func (x *xmlLexers) ByName(key string, alias bool) chroma.Lexer {
	index := xmlNames[:]
	if alias {
		index = xmlAliases[:]
	}
	i := sort.Search(len(index), func(i int) bool { return index[i].key >= key })
	if i == len(index) || index[i].key != key {
		return nil
	}
	return x.file(index[i].file)
}

// file parses the embedded lexer in file, once.
func (x *xmlLexers) file(file string) chroma.Lexer {
	if lexer := x.parsed[file]; lexer != nil {
		return lexer
	}
	lexer := chroma.MustNewXMLLexer(embedded, "embedded/"+file)
	x.parsed[file] = lexer
	return lexer
}

// xmlKey is a name or alias of an embedded XML lexer, and its file.
type xmlKey struct{ key, file string }

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	return GlobalLexerRegistry.Names(withAliases)
}

// Aliases of all the lexers, and skip those lexers who do not have any aliases,
// or show their name instead
func Aliases(skipWithoutAliases bool) []string {
	return GlobalLexerRegistry.Aliases(skipWithoutAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	return GlobalLexerRegistry.Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	return GlobalLexerRegistry.MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	return GlobalLexerRegistry.Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	return GlobalLexerRegistry.Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
