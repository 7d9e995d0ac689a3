package session_test

import (
	"errors"
	"strings"
	"testing"

	"latch/session"
	"latch/session/ollamatest"
)

// broken is installed (listed) but its blob is missing: see
// ollamatest.Model.MissingBlob.
var broken = ollamatest.Model{Name: "broken:7b", Size: 4_100_000_000, ParameterSize: "7B",
	Capabilities: []string{"completion", "tools"}, MissingBlob: true}

// Models lists a model whose /api/show failed with its capabilities unknown
// (not "no tools, no thinking"), saying what failed.
func TestModelsSaysWhenCapabilitiesAreUnknown(t *testing.T) {
	t.Parallel()
	srv := newServer(t, qwen, broken)
	s := newSession(t, srv, session.Options{Model: "qwen3:8b"})
	ms, err := s.Models(bounded(t))
	if err != nil || len(ms) != 2 {
		t.Fatalf("Models = %+v, %v", ms, err)
	}
	b, q := ms[0], ms[1]
	if b.Name != "broken:7b" || b.CapsKnown() || b.Tools() || b.Thinking() || b.Size != broken.Size {
		t.Errorf("broken model = %+v, want it listed with unknown capabilities", b)
	}
	containsAll(t, b.ShowErr, "/api/show", "404", "model 'broken:7b' not found", "ollama pull broken:7b")
	if strings.Contains(b.ShowErr, "\n") {
		t.Errorf("ShowErr is not one line: %q", b.ShowErr)
	}
	if !q.CapsKnown() || q.ShowErr != "" || !q.Tools() || !q.Thinking() {
		t.Errorf("qwen = %+v, want its capabilities known", q)
	}

	// Any other failure of /api/show is said too.
	_, err = s.Probe(bounded(t))
	if err != nil {
		t.Fatalf("Probe of qwen: %v", err)
	}
}

// Chatting with it fails with Ollama's 400, which names the model, with a
// hint at what it means; choosing it fails naming the model.
func TestMissingBlobChatNamesTheModel(t *testing.T) {
	t.Parallel()
	srv := newServer(t, qwen, broken)
	s := newSession(t, srv, session.Options{Model: "broken:7b"})
	r := newReader(t, s)
	send(t, s, "hi")
	evs := r.turn()
	msg := failed(t, evs, session.ReasonError)
	containsAll(t, msg, "400", `"broken:7b" does not support chat`, "ollama pull broken:7b")
	if n := len(of[*session.AssistantMessage](evs)); n != 0 {
		t.Errorf("a reply from a model without its blob: %s", kinds(evs))
	}

	_, err := s.SetModel(bounded(t), "broken:7b")
	var ue *session.UserError
	if !errors.As(err, &ue) {
		t.Fatalf("SetModel = %v, want a UserError", err)
	}
	containsAll(t, ue.Msg, "broken:7b", "ollama pull broken:7b")
	info, err := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "broken:7b"}).Probe(bounded(t))
	if err == nil || info.CapsKnown() {
		t.Errorf("Probe = %+v, %v; want an error and unknown capabilities", info, err)
	}
}
