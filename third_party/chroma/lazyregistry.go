package chroma

import (
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// LazyLexers is where a registry made by NewLazyLexerRegistry gets the
// lexers it does not hold from the start (in chroma, the lexers package's
// embedded XML lexers), so that a program that highlights nothing, or
// only with lexers it looks up by name, does not build them all. The
// registry calls its methods one at a time.
type LazyLexers interface {
	// All returns every lexer, in the order they are registered, before
	// any lexer given to Register.
	All() []Lexer
	// ByName returns the lexer All would register under key in the
	// registry's names (alias false) or aliases (alias true), the last
	// one registered under it, or nil. A lexer it returns must be the one
	// All returns later (the same value), and ByName must be cheap: it
	// is for building one lexer, not all of them.
	ByName(key string, alias bool) Lexer
}

// LazyAnalysers is a LazyLexers that can give the lexers of All that
// may score a text above zero in Analyse without building the others.
type LazyAnalysers interface {
	LazyLexers
	// AllNames returns the names of the lexers All returns, in its order,
	// without building them.
	AllNames() []string
	// Analysers returns, by their place in All, every lexer All returns
	// that has an analyser, and may return others (they score zero). Each
	// must be the value All returns later.
	Analysers() map[int]Lexer
}

// LazyMatchers is a LazyAnalysers that can also give the lexers of All
// with a file name pattern that passes a test without building the
// others.
type LazyMatchers interface {
	LazyAnalysers
	// Matchers returns, by their place in All, every lexer All returns
	// with a pattern in its Filenames or AliasFilenames for which keep is
	// true, and may return others. Each must be the value All returns
	// later.
	Matchers(keep func(glob string) bool) map[int]Lexer
}

// NewLazyLexerRegistry returns a registry that holds from's lexers and
// then those given to Register, in that order, as a registry made by
// NewLexerRegistry would if each had been registered, but that asks from
// for them only when first needed: Get by a name or alias asks for that
// one lexer (from.ByName), and Names, Aliases, Match, MatchMimeType,
// Analyse and a Get that finds no name or alias ask for all of them
// (from.All, once). Lookups are safe to make concurrently, as they are
// on a registry whose lexers were all registered.
func NewLazyLexerRegistry(from LazyLexers) *LexerRegistry {
	l := NewLexerRegistry()
	l.lazy = &lazyRegistry{from: from, deferred: NewLexerRegistry()}
	return l
}

// lazyRegistry is the state of a lazily filled LexerRegistry until all of
// its lexers are loaded.
type lazyRegistry struct {
	loaded atomic.Bool // all loaded: the registry's own fields hold them

	mu   sync.Mutex // over everything below, and the calls to from
	from LazyLexers
	// deferred holds the lexers given to Register before the load, in
	// their order, under the names and aliases they registered under.
	deferred *LexerRegistry
}

// defer_ keeps lexer for the load if the registry l is not loaded yet,
// reporting whether it did.
func (z *lazyRegistry) defer_(l *LexerRegistry, lexer Lexer) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.loaded.Load() {
		return false
	}
	lexer.SetRegistry(l)
	config := lexer.Config()
	d := z.deferred
	d.byName[config.Name] = lexer
	d.byName[strings.ToLower(config.Name)] = lexer
	for _, alias := range config.Aliases {
		d.byAlias[alias] = lexer
		d.byAlias[strings.ToLower(alias)] = lexer
	}
	d.Lexers = append(d.Lexers, lexer) // every one: the load replays them in order
	return true
}

// get looks name up as Get does before it tries file names: in the
// names, then the aliases, then both lower-cased. A lexer given to
// Register hides from's under the same key, as registering from's first
// would have. Once all are loaded it returns nil: the registry's own
// fields answer.
func (z *lazyRegistry) get(l *LexerRegistry, name string) Lexer {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.loaded.Load() {
		return nil
	}
	lower := strings.ToLower(name)
	for _, k := range [...]struct {
		key   string
		alias bool
	}{{name, false}, {name, true}, {lower, false}, {lower, true}} {
		m := z.deferred.byName
		if k.alias {
			m = z.deferred.byAlias
		}
		if lexer := m[k.key]; lexer != nil {
			return lexer
		}
		if lexer := z.from.ByName(k.key, k.alias); lexer != nil {
			lexer.SetRegistry(l)
			return lexer
		}
	}
	return nil
}

// analysers returns the lexers Analyse scores, in the order of the
// registry's Lexers once loaded. A lazy registry not loaded yet whose
// source is a LazyAnalysers gives its analysers and those given to
// Register: the others would score zero, so a text with no language
// does not build every lexer. Any other registry loads all of them.
func (l *LexerRegistry) analysers() []Lexer {
	if z := l.lazy; z != nil && !z.loaded.Load() {
		z.mu.Lock()
		if from, ok := z.from.(LazyAnalysers); ok && !z.loaded.Load() {
			some := from.Analysers()
			for _, lexer := range some {
				lexer.SetRegistry(l)
			}
			in := loadOrder(from.AllNames(), some, z.deferred.Lexers)
			z.mu.Unlock()
			return in
		}
		z.mu.Unlock()
	}
	l.loadAll()
	return l.Lexers
}

// matchers returns the lexers Match tries for the base name filename, in
// the order of the registry's Lexers once loaded. A lazy registry not
// loaded yet whose source is a LazyMatchers gives those of its lexers
// with a pattern filename matches and those given to Register: Match
// passes over the others. Any other registry loads all of them.
func (l *LexerRegistry) matchers(filename string) []Lexer {
	if z := l.lazy; z != nil && !z.loaded.Load() {
		z.mu.Lock()
		if from, ok := z.from.(LazyMatchers); ok && !z.loaded.Load() {
			some := from.Matchers(func(glob string) bool { return globMatches(glob, filename) })
			for _, lexer := range some {
				lexer.SetRegistry(l)
			}
			in := loadOrder(from.AllNames(), some, z.deferred.Lexers)
			z.mu.Unlock()
			return in
		}
		z.mu.Unlock()
	}
	l.loadAll()
	return l.Lexers
}

// globMatches reports whether Match takes filename for glob: matched by
// it, or by it with one of the ignored suffixes (a pattern Match cannot
// read panics, as in Match).
func globMatches(glob, filename string) bool {
	if ok, err := filepath.Match(glob, filename); err != nil {
		panic(err)
	} else if ok {
		return true
	}
	for _, suf := range &ignoredSuffixes {
		if ok, err := filepath.Match(glob+suf, filename); err != nil {
			panic(err)
		} else if ok {
			return true
		}
	}
	return false
}

// loadOrder is the order in which loading registers a lazy registry's
// lexers: those of its source, named names (of which only some are
// built, by their place), then those given to Register, each taking the
// place of the first before it with the same name, as register does
// (add). It returns the lexers of that order that are built.
func loadOrder(names []string, some map[int]Lexer, registered []Lexer) []Lexer {
	order := make([]Lexer, 0, len(names)+len(registered)) // nil: not built
	place := make(map[string]int, len(names)+len(registered))
	put := func(name string, lexer Lexer) {
		if i, ok := place[name]; ok {
			order[i] = lexer
			return
		}
		place[name] = len(order)
		order = append(order, lexer)
	}
	for i, name := range names {
		put(name, some[i])
	}
	for _, lexer := range registered {
		put(lexer.Config().Name, lexer)
	}
	built := order[:0]
	for _, lexer := range order {
		if lexer != nil {
			built = append(built, lexer)
		}
	}
	return built
}

// loadAll registers every lexer of a lazy registry, once: from's, then
// those given to Register before, in their order.
func (l *LexerRegistry) loadAll() {
	z := l.lazy
	if z == nil || z.loaded.Load() {
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.loaded.Load() {
		return
	}
	for _, lexer := range z.from.All() {
		l.register(lexer)
	}
	for _, lexer := range z.deferred.Lexers {
		l.register(lexer)
	}
	z.deferred, z.from = nil, nil
	z.loaded.Store(true)
}
