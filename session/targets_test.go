package session_test

import (
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/session"
	"latch/session/ollamatest"
)

// An Ollama an end-to-end test runs against: the fake answering as each
// version it knows, and, when LATCH_REAL_OLLAMA names one (a URL, with
// LATCH_REAL_OLLAMA_VERSION its version, e.g. 0.32.15), a real server
// with the test models tiny and tiny-think (see docs/DEVELOPING.md).
// Without it the real case is skipped, saying so.
type target struct {
	name    string
	version string
	fake    *ollamatest.Server // nil for a real server
	client  *api.Client
	raw     session.RawOllama
	// model can call tools; thinker can think and takes no level on
	// v0.17.4; trained is model's trained maximum context.
	model, thinker string
	trained        int
}

// hear is a model with capabilities latch has no column for.
var hear = ollamatest.Model{Name: "hear:2b", Capabilities: []string{"completion", "vision", "audio"}, ContextLength: 16384}

// session makes a session over the target (Client, Host and Raw filled
// in), closed when the test ends.
func (tg target) session(t *testing.T, o session.Options) *session.Session {
	t.Helper()
	if tg.fake != nil {
		return newSession(t, tg.fake, o)
	}
	o.Client, o.Host, o.Raw = tg.client, tg.raw.URL.Host, tg.raw
	s := session.New(o)
	t.Cleanup(s.Close)
	return s
}

// eachTarget runs f against the fake as each version, then against the
// real server of LATCH_REAL_OLLAMA, or skips that case loudly.
func eachTarget(t *testing.T, f func(t *testing.T, tg target)) {
	fakeThinker := ollamatest.Model{Name: "tiny-think", Capabilities: []string{"completion", "thinking"}, ContextLength: 8192}
	for _, v := range ollamatest.Versions {
		t.Run(v, func(t *testing.T) {
			srv := newServerAs(t, v, qwen, tiny, fakeThinker, hear)
			srv.SetDefault(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("hmm"), ollamatest.Tokens("ok")...)})
			f(t, target{name: "fake " + v, version: v, fake: srv, client: srv.Client(), raw: rawOf(srv),
				model: "qwen3:8b", thinker: "tiny-think", trained: qwen.ContextLength})
		})
	}
	t.Run("real", func(t *testing.T) {
		addr := os.Getenv("LATCH_REAL_OLLAMA")
		if addr == "" {
			t.Skip("LATCH_REAL_OLLAMA is not set: not run against a real Ollama " +
				"(set it to a server's URL and LATCH_REAL_OLLAMA_VERSION to its version; models tiny and tiny-think)")
		}
		u, err := url.Parse(addr)
		if err != nil || u.Host == "" {
			t.Fatalf("LATCH_REAL_OLLAMA=%q is not a URL", addr)
		}
		v := os.Getenv("LATCH_REAL_OLLAMA_VERSION")
		if v != ollamatest.V0174 && v != ollamatest.V03215 {
			t.Fatalf("LATCH_REAL_OLLAMA_VERSION=%q: want %s or %s", v, ollamatest.V0174, ollamatest.V03215)
		}
		hc := &http.Client{Timeout: 5 * time.Minute}
		t.Logf("against the real Ollama %s at %s", v, addr)
		f(t, target{name: "real " + v, version: v, client: api.NewClient(u, hc), raw: session.RawOllama{URL: u, HTTP: hc},
			model: "tiny", thinker: "tiny-think", trained: 8192})
	})
}
