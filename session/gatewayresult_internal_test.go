package session

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestJSONBoundIsNeverBelowTheEncoding: the bound keepForClient trusts
// instead of encoding a result is never below what json.Marshal writes,
// for the worst strings (control bytes, HTML, invalid UTF-8, U+2028), and
// refuses what might not encode (Inf, NaN) or that it does not know.
func TestJSONBoundIsNeverBelowTheEncoding(t *testing.T) {
	worst := "\x00\x01\x1f<>&\xff\xfe\u2028\u2029\"\\é🙂"
	values := []any{
		nil, true, false, "", worst, strings.Repeat(worst, 100), 0.0, -1.2345678901234567e-308, math.MaxFloat64,
		map[string]any(nil), map[string]any{}, map[string]any{worst: worst, "n": []any{1.5, nil, true, map[string]any{"x": worst}}},
		[]any(nil), []any{}, []map[string]any(nil), []map[string]any{nil, {}, {"type": "text", "text": worst}},
	}
	for _, v := range values {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := jsonBound(v, maxKeptResult)
		if !ok || n < len(want) {
			t.Errorf("jsonBound(%#v) = %d, %v; json.Marshal writes %d bytes", v, n, ok, len(want))
		}
	}
	for _, v := range []any{math.Inf(1), math.NaN(), json.Number("1"), 7, map[string]any{"k": math.Inf(-1)}, []any{struct{}{}}} {
		if _, ok := jsonBound(v, maxKeptResult); ok {
			t.Errorf("jsonBound(%#v) is ok", v)
		}
	}
	if _, ok := jsonBound(strings.Repeat("x", maxKeptResult), maxKeptResult); ok {
		t.Error("a string past the budget is ok")
	}
}
