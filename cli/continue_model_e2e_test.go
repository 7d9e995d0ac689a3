package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"latch/session"
	"latch/session/ollamatest"
)

// TestContinueKeepsTheModelOfSlashModel: a session whose model was
// changed with /model (its log's model_changed) comes back on --continue
// with that model, not the config's, and says so; --model on the command
// line wins over both, and says that too.
func TestContinueKeepsTheModelOfSlashModel(t *testing.T) {
	t.Parallel()
	const other = "llama3.2:3b"
	fake := ollamatest.New(ollamatest.Model{Name: e2eModel, Capabilities: []string{"completion", "tools"}},
		ollamatest.Model{Name: other, Capabilities: []string{"completion", "tools"}})
	t.Cleanup(fake.Close)
	r := newPromptRig(t, map[string]any{"model": e2eModel}, false, "OLLAMA_HOST="+fake.Host())
	fake.Script(ollamatest.TextTurn("Noted."), ollamatest.TextTurn("Still noted."), ollamatest.TextTurn("Noted again."))
	if res := r.run("", "-p", "note the sky"); res.code != exitOK {
		t.Fatalf("exit %d", res.code)
	}
	id := r.onlySession()
	// /model OTHER in the chat, then quit: the log ends with its event.
	ev, err := session.Marshal(&session.ModelChanged{Header: session.Header{Type: session.TypeModelChanged,
		Time: time.Now().UTC(), SessionID: id}, Model: other})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(r.state, id+".jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(append(ev, '\n')); err != nil {
		t.Fatal(err)
	}
	f.Close()

	res := r.run("", "--continue", "-p", "again")
	if res.code != exitOK {
		t.Fatalf("--continue: exit %d", res.code)
	}
	reqs := fake.Requests()
	if got := reqs[len(reqs)-1].Model; got != other {
		t.Errorf("--continue asked %s, want %s, the model /model chose", got, other)
	}
	if !strings.Contains(res.stderr, "model "+other+", as this session last used it (not the configured "+e2eModel+"; --model chooses another)") {
		t.Errorf("--continue did not say which model it took and why; stderr %q", res.stderr)
	}

	res = r.run("", "--continue", "--model", e2eModel, "-p", "and again")
	if res.code != exitOK {
		t.Fatalf("--continue --model: exit %d", res.code)
	}
	reqs = fake.Requests()
	if got := reqs[len(reqs)-1].Model; got != e2eModel {
		t.Errorf("--continue --model %s asked %s: the command line must win", e2eModel, got)
	}
	if !strings.Contains(res.stderr, "--model "+e2eModel+" overrides this session's model "+other) {
		t.Errorf("--model did not say it overrides the session's model; stderr %q", res.stderr)
	}
}
