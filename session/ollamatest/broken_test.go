package ollamatest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// TestRunnerDeathWire: a runner that dies in mid-reply is, on the wire, a
// 200 NDJSON stream whose chunks are followed by exactly one
// {"error":"…"} line and the end of the body, as streamResponse in a real
// v0.17.4 server writes it; the api client returns the message as a plain
// error after handing over the chunks.
func TestRunnerDeathWire(t *testing.T) {
	s := newServer(t)
	const died = "an error was encountered while running the model: unexpected EOF"
	s.Script(Turn{Chunks: Tokens("one two three four"), Error: died, ErrorAfter: 2})
	st, ct, body := post(t, s, "POST", "/api/chat", `{"model":"tiny","messages":[{"role":"user","content":"x"}]}`)
	if st != 200 || ct != "application/x-ndjson" {
		t.Fatalf("status %d, content type %q; want a 200 NDJSON stream", st, ct)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if !strings.HasSuffix(body, "\n") || len(lines) != 3 {
		t.Fatalf("body %q: want two chunks and the error line, each ending in a newline", body)
	}
	if want := `{"error":"` + died + `"}`; lines[2] != want {
		t.Fatalf("last line %q, want %q", lines[2], want)
	}
	for _, l := range lines[:2] {
		if !strings.Contains(l, `"done":false`) || strings.Contains(l, "error") {
			t.Fatalf("chunk line %q", l)
		}
	}

	s.Script(Turn{Chunks: Tokens("one two three four"), Error: died, ErrorAfter: 2})
	got, err := chat(t, s, &api.ChatRequest{Model: "tiny", Messages: user("x")})
	var se api.StatusError
	if err == nil || errors.As(err, &se) || err.Error() != died {
		t.Fatalf("Chat error %T %v, want the plain error %q", err, err, died)
	}
	ch := Tokens("one two three four")
	if c, _ := join(got); len(got) != 2 || c != ch[0].Content+ch[1].Content {
		t.Fatalf("before the error: %+v", got)
	}
}

// TestMissingBlob: a model whose manifest is there but whose blob is not is
// listed, cannot be shown (404) and cannot chat (400 "does not support
// chat"), whatever the request offers; see Model.MissingBlob.
func TestMissingBlob(t *testing.T) {
	s := New(qwen, Model{Name: "broken:7b", Size: 4_000_000_000, Capabilities: []string{"completion", "tools"}, MissingBlob: true})
	t.Cleanup(s.Close)
	c := s.Client()
	ctx := context.Background()

	list, err := c.List(ctx)
	if err != nil || len(list.Models) != 2 || list.Models[1].Name != "broken:7b" {
		t.Fatalf("tags: %v %+v, want the broken model listed", err, list)
	}
	for _, name := range []string{"broken:7b", "BROKEN:7b"} {
		_, err = c.Show(ctx, &api.ShowRequest{Model: name})
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != "model '"+name+"' not found" {
			t.Fatalf("show %s: %v", name, err)
		}
	}
	st, ct, body := post(t, s, "POST", "/api/show", `{"model":"broken:7b"}`)
	if st != 404 || ct != "application/json; charset=utf-8" || body != `{"error":"model 'broken:7b' not found"}` {
		t.Fatalf("raw show: %d %q %s", st, ct, body)
	}

	tools := api.Tools{{Type: "function", Function: api.ToolFunction{Name: "f"}}}
	for _, req := range []*api.ChatRequest{
		{Model: "broken:7b", Messages: user("x")},
		{Model: "broken:7b", Messages: user("x"), Tools: tools},
		{Model: "broken:7b"}, // load
	} {
		_, err := chat(t, s, req)
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != 400 || se.ErrorMessage != `"broken:7b" does not support chat` {
			t.Fatalf("chat %+v: %v", req, err)
		}
	}
	st, ct, body = post(t, s, "POST", "/api/chat", `{"model":"broken:7b","messages":[{"role":"user","content":"x"}]}`)
	if st != 400 || ct != "application/json; charset=utf-8" || body != `{"error":"\"broken:7b\" does not support chat"}` {
		t.Fatalf("raw chat: %d %q %s", st, ct, body)
	}
	// An unload still works, and no chat request consumed a turn.
	if got, err := chat(t, s, &api.ChatRequest{Model: "broken:7b", KeepAlive: &api.Duration{}}); err != nil || len(got) != 1 || got[0].DoneReason != "unload" {
		t.Fatalf("unload: %v %+v", err, got)
	}
	s.Script(TextTurn("still scripted"))
	got, err := chat(t, s, &api.ChatRequest{Model: "qwen3:8b", Messages: user("x")})
	if c, _ := join(got); err != nil || c != "still scripted" {
		t.Fatalf("the other model: %v %q", err, c)
	}
}
