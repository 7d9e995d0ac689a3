package gateway_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"latch/gateway"
	"latch/session"
)

// A client that sends a request body larger than the gateway takes is
// refused with 413 before the body is read into memory, whether it says
// its length or streams it in chunks, and the gateway goes on serving.
func TestServeRefusesAnOversizedBody(t *testing.T) {
	up := newHoldServer()
	r := startRig(t, gateway.Options{}, false, session.Options{}, session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	huge := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
		`"capabilities":{},"clientInfo":{"name":"` + strings.Repeat("a", gateway.MaxRequestBody) + `","version":"1"}}}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(huge)
		if chunked {
			body = io.MultiReader(strings.NewReader(huge)) // no length known: chunked
		}
		req, err := http.NewRequest("POST", r.url, body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("chunked %v: %v", chunked, err)
		}
		got, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked %v: %d %q; want 413", chunked, resp.StatusCode, got)
		}
	}
	c := r.connect(t, "after", nil)
	if res, err := call(t, c, "up__echo", map[string]any{"x": "still here"}); err != nil || res.IsError {
		t.Fatalf("the gateway stopped serving after a huge body: %v %v", err, res)
	}
}

// A body under the bound reaches mcp-go whole, as the client sent it,
// small or large (the guard reads one of said length up to 64 KiB into a
// buffer of that length, a larger one as it arrives), its length said or
// streamed in chunks.
func TestServeTakesABodyUnderTheBound(t *testing.T) {
	up := newHoldServer()
	r := startRig(t, gateway.Options{}, false, session.Options{}, session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: up.srv})
	for _, size := range []int{10, 100 << 10} {
		name := strings.Repeat("n", size)
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",` +
			`"capabilities":{},"clientInfo":{"name":"` + name + `","version":"1"}}}`
		for _, chunked := range []bool{false, true} {
			var rd io.Reader = strings.NewReader(body)
			if chunked {
				rd = io.MultiReader(rd) // no length known: chunked
			}
			req, err := http.NewRequest("POST", r.url, rd)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+token)
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatalf("%d bytes, chunked %v: %v", len(body), chunked, err)
			}
			got, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(got), `"protocolVersion"`) {
				t.Errorf("%d bytes, chunked %v: %d %.200q; want the initialize answered", len(body), chunked, resp.StatusCode, got)
			}
		}
	}
}
