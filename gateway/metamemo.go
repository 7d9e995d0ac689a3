package gateway

import (
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// metaMemo keeps the _meta of plain calls of the 2026-07-28 protocol, as
// written and decoded: a client sends the same one with every call, so it
// is decoded once, not once a call. Over HTTP many clients call at once,
// each with its own (its name is in it), so one is kept per client seen,
// up to metaMemoSize of at most metaMemoRaw bytes each; when full, it
// starts again empty. The zero value is ready.
type metaMemo struct {
	mu sync.Mutex
	m  map[string]metaSeen
}

// metaSeen is one _meta decoded, and the era it declares.
type metaSeen struct {
	meta *mcpgo.Meta
	era  *server.RequestProtocolInfo
}

const (
	metaMemoSize = 256     // _meta values kept at most
	metaMemoRaw  = 4 << 10 // the longest _meta kept, in bytes
)

// load is what raw was decoded to, if kept.
func (mm *metaMemo) load(raw []byte) (metaSeen, bool) {
	mm.mu.Lock()
	defer mm.mu.Unlock()
	seen, ok := mm.m[string(raw)]
	return seen, ok
}

// store keeps what raw was decoded to.
func (mm *metaMemo) store(raw []byte, seen metaSeen) {
	if len(raw) > metaMemoRaw {
		return
	}
	mm.mu.Lock()
	defer mm.mu.Unlock()
	if mm.m == nil || len(mm.m) >= metaMemoSize {
		mm.m = make(map[string]metaSeen, 16)
	}
	mm.m[string(raw)] = seen
}
