package gateway

import (
	"fmt"
	"testing"
)

// Many clients calling in turn over HTTP, each with its own _meta: each
// call is read as its own client's, a client's _meta is decoded once
// while it is kept, and what is kept stays bounded.
func TestMetaOfManyClients(t *testing.T) {
	g := &Gateway{}
	raw := func(i int) []byte {
		return fmt.Appendf(nil, `{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c%d","version":"1"},`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, i)
	}
	first := map[int]any{}
	for round := range 2 {
		for i := range 50 {
			meta, era := g.metaOf(raw(i))
			if era == nil || era.ClientInfo == nil || era.ClientInfo.Name != fmt.Sprintf("c%d", i) || meta == nil {
				t.Fatalf("client c%d's _meta read as %+v", i, era)
			}
			if round == 0 {
				first[i] = era
			} else if first[i] != any(era) {
				t.Errorf("client c%d's _meta decoded again on its second call", i)
			}
		}
	}
	for i := range 3 * metaMemoSize {
		if _, era := g.metaOf(raw(i)); era == nil || era.ClientInfo.Name != fmt.Sprintf("c%d", i) {
			t.Fatalf("client c%d's _meta read as %+v", i, era)
		}
	}
	if n := len(g.meta.m); n > metaMemoSize {
		t.Errorf("%d _meta values kept, more than %d", n, metaMemoSize)
	}
}
