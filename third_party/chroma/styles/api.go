package styles

import (
	"embed"
	"io/fs"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// Patched for latch: the embedded XML styles are parsed when first
// needed, not at init. Lookup and Get by a name parse the one file that
// holds the style of that name (index.go), and Registry and Names all of
// them, once. The styles given to Register hide the embedded ones of the
// same name, as when every embedded style was registered at init.
var (
	mu         sync.Mutex
	loaded     bool                         // registry holds every style
	registry   = map[string]*chroma.Style{} // once loaded: every style
	registered = map[string]*chroma.Style{} // until loaded: Register's
	parsed     = map[string]*chroma.Style{} // by file name
	_          = mustParse("swapoff.xml")   // Fallback's, parsed at init
)

// Registry of Styles: every embedded style and those given to Register.
// It loads them all (once); Lookup and Get do not.
func Registry() map[string]*chroma.Style {
	mu.Lock()
	defer mu.Unlock()
	loadAll()
	return registry
}

// Fallback style. Reassign to change the default fallback style.
var Fallback = parsed["swapoff.xml"]

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	mu.Lock()
	defer mu.Unlock()
	if loaded {
		registry[style.Name] = style
	} else {
		registered[style.Name] = style
	}
	return style
}

// Names of all available styles.
func Names() []string {
	out := []string{}
	for name := range Registry() {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	if style, ok := Lookup(name); ok {
		return style
	}
	return Fallback
}

// Lookup returns the style registered under name, and whether there is
// one, parsing at most the embedded file that holds it.
func Lookup(name string) (*chroma.Style, bool) {
	mu.Lock()
	defer mu.Unlock()
	if loaded {
		style, ok := registry[name]
		return style, ok
	}
	if style, ok := registered[name]; ok {
		return style, true
	}
	i := sort.Search(len(xmlStyles), func(i int) bool { return xmlStyles[i].name >= name })
	if i == len(xmlStyles) || xmlStyles[i].name != name {
		return nil, false
	}
	return mustParse(xmlStyles[i].file), true
}

// xmlStyle is an embedded style's name and its file.
type xmlStyle struct{ name, file string }

// loadAll registers every embedded style, in the order of their files,
// then those given to Register, once. The caller holds mu.
func loadAll() {
	if loaded {
		return
	}
	files, err := fs.ReadDir(embedded, ".")
	if err != nil {
		panic(err)
	}
	for _, file := range files {
		if file.IsDir() {
			continue
		}
		style := mustParse(file.Name())
		registry[style.Name] = style
	}
	for name, style := range registered {
		registry[name] = style
	}
	registered, loaded = nil, true
}

// mustParse parses the embedded style in file, once, and panics if it
// cannot, as the unpatched package did at init.
func mustParse(file string) *chroma.Style {
	if style := parsed[file]; style != nil {
		return style
	}
	r, err := embedded.Open(file)
	if err != nil {
		panic(err)
	}
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	_ = r.Close()
	parsed[file] = style
	return style
}
