package jsonschema

import (
	"strings"
	"sync"
	"testing"
)

// TestMetaSchemasOnFirstUse: the meta-schemas are compiled when a schema
// is first compiled, not before, and a schema that breaks its draft's
// meta-schema is refused as before, from many goroutines at once.
func TestMetaSchemasOnFirstUse(t *testing.T) {
	if Draft2020.sch != nil || Draft4.sch != nil {
		t.Fatal("meta-schemas compiled before first use")
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewCompiler()
			if err := c.AddResource("mem://ok.json", map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}); err != nil {
				t.Error(err)
				return
			}
			sch, err := c.Compile("mem://ok.json")
			if err != nil {
				t.Error(err)
				return
			}
			if err := sch.Validate(map[string]any{"n": "x"}); err == nil {
				t.Error("a string validated as an integer")
			}
			c = NewCompiler()
			if err := c.AddResource("mem://bad.json", map[string]any{"type": 5}); err != nil {
				t.Error(err)
				return
			}
			if _, err := c.Compile("mem://bad.json"); err == nil || !strings.Contains(err.Error(), "metaschema") {
				t.Errorf("a schema against its meta-schema: %v", err)
			}
		}()
	}
	wg.Wait()
	if Draft2020.sch == nil || Draft4.sch == nil || Draft2020.allVocabs["core"] == nil {
		t.Error("meta-schemas not compiled")
	}
}
