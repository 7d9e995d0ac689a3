package session_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"latch/session"
	"latch/session/ollamatest"
)

// A reply line longer than the stream's first buffer (64 KB) arrives
// whole: the buffer grows for it, as the api client's 8 MB one held it.
func TestChatStreamReadsALongLineWhole(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	long := strings.Repeat("abcdefghij", 30_000) // 300 KB in one line
	srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{Content: "start "}, {Content: long}, {Content: " end"}}})
	s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
	r := newReader(t, s)
	send(t, s, "hi")
	evs := r.turn()
	if errs := of[*session.Error](evs); len(errs) > 0 {
		t.Fatalf("the turn failed: %s", errs[0].Message)
	}
	if content, _ := texts(evs); content != "start "+long+" end" {
		t.Fatalf("the reply has %d bytes, want %d", len(content), len("start "+long+" end"))
	}
}

// Ollama's errors read the same through the session's own stream as
// through the api client's (a session without Raw): what the person is
// told does not depend on which one read the chat.
func TestChatStreamErrorsAsTheAPIClient(t *testing.T) {
	t.Parallel()
	cases := map[string]ollamatest.Turn{
		"not found":    {Status: http.StatusNotFound, Error: "model \"qwen3:8b\" not found, try pulling it first"},
		"unauthorized": {Status: http.StatusUnauthorized},
		"server error": {Status: http.StatusInternalServerError, Error: "llama runner process has terminated"},
		"mid-stream":   {Chunks: ollamatest.Tokens("one two three four"), Error: "out of memory", ErrorAfter: 2},
	}
	for name, turn := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			said := map[bool]string{}
			for _, raw := range []bool{true, false} {
				srv := newServer(t)
				srv.Script(turn)
				o := session.Options{Model: "qwen3:8b", Client: srv.Client(), Host: srv.Host()}
				if raw {
					o.Raw = rawOf(srv)
				}
				s := session.New(o)
				t.Cleanup(s.Close)
				r := newReader(t, s)
				send(t, s, "hi")
				errs := of[*session.Error](r.turn())
				if len(errs) == 0 {
					t.Fatalf("raw %v: no error told", raw)
				}
				said[raw] = strings.ReplaceAll(errs[0].Message, srv.Host(), "HOST") // each case has a server of its own
			}
			if said[true] != said[false] {
				t.Errorf("the session's stream says\n%s\nthe api client's says\n%s", said[true], said[false])
			}
		})
	}
}

// A reply whose tokens come slower than the stream is read, a few bytes
// each, arrives whole and at once, and so does the next turn's on the
// same connection: the socket is kept quiet only while the reader waits
// for its next read (quietSocket), never while a read waits for data.
// Were a read to wait with the socket quiet, a token far smaller than
// the mark would never wake it, and the turn would hang.
func TestChatStreamSlowTokensArrive(t *testing.T) {
	t.Parallel()
	srv := newServer(t)
	slow := ollamatest.Turn{Chunks: ollamatest.Tokens("one two three four"), Delay: 40 * time.Millisecond}
	srv.Script(slow, slow)
	s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
	r := newReader(t, s)
	for turn := 1; turn <= 2; turn++ {
		send(t, s, "hi")
		evs := r.turn()
		if errs := of[*session.Error](evs); len(errs) > 0 {
			t.Fatalf("turn %d failed: %s", turn, errs[0].Message)
		}
		if content, _ := texts(evs); content != "one two three four" {
			t.Fatalf("turn %d: the reply is %q", turn, content)
		}
	}
}
