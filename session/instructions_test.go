package session_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"latch/session"
	"latch/session/ollamatest"
)

// writeAgents writes an AGENTS.md into dir and returns its path.
func writeAgents(t *testing.T, dir, text string) string {
	t.Helper()
	p := filepath.Join(dir, "AGENTS.md")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// systemMessages are the contents of the system messages a request opens with.
func systemMessages(ms []api.Message) []string {
	var out []string
	for _, m := range ms {
		if m.Role != "system" {
			break
		}
		out = append(out, m.Content)
	}
	return out
}

// TestInstructionsOpenEveryRequest: the system prompt and AGENTS.md reach
// the model as the first system messages, in that order, on every turn;
// the log holds their hash, not their text; a resume sends the same.
func TestInstructionsOpenEveryRequest(t *testing.T) {
	t.Parallel()
	dir, logDir := t.TempDir(), t.TempDir()
	agents := writeAgents(t, dir, "Run make test before committing. SECRET-PROJECT-RULE")
	in, err := session.ReadInstruction("AGENTS.md", agents)
	if err != nil {
		t.Fatal(err)
	}
	ins := []session.Instruction{{Name: "system prompt", Text: "You are terse. SECRET-PROMPT-WORD"}, in}
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", LogDir: logDir, Instructions: ins})
	r := startLogged(t, s)
	send(t, s, "hello")
	r.turn()
	send(t, s, "again")
	r.turn()
	want := []string{"You are terse. SECRET-PROMPT-WORD", "Run make test before committing. SECRET-PROJECT-RULE"}
	reqs := srv.Requests()
	for i, req := range reqs {
		if got := systemMessages(req.Messages); !slices.Equal(got, want) {
			t.Fatalf("request %d opens with %q, want %q", i, got, want)
		}
	}
	ci := s.Context()
	if len(ci.Instructions) != 2 || ci.Instructions[1].Name != "AGENTS.md" || ci.Instructions[1].Tokens <= 0 ||
		ci.Est.System < ci.Instructions[0].Tokens+ci.Instructions[1].Tokens {
		t.Errorf("Context() instructions %+v, system estimate %d", ci.Instructions, ci.Est.System)
	}
	s.Close()

	b, err := os.ReadFile(filepath.Join(logDir, s.ID()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SECRET-PROMPT-WORD") || strings.Contains(string(b), "SECRET-PROJECT-RULE") {
		t.Errorf("the log copies the instructions' text")
	}
	if !strings.Contains(string(b), `"sha256"`) {
		t.Errorf("the log holds no hash of the instructions")
	}

	// Resumed without the AGENTS.md option: the logged file is read again.
	srv2 := newServer(t)
	srv2.SetDefault(ollamatest.TextTurn("ok"))
	o := session.Options{Client: srv2.Client(), Host: srv2.Host(), LogDir: logDir,
		Instructions: ins[:1]}
	s2, _ := resume(t, o, logDir, s.ID())
	r2 := startLogged(t, s2)
	send(t, s2, "more")
	r2.turn()
	if got := systemMessages(srv2.Requests()[0].Messages); !slices.Equal(got, want) {
		t.Fatalf("resumed request opens with %q, want %q", got, want)
	}
}

// TestInstructionsChangedOnResume: AGENTS.md changed since the session
// began: the resume sends the current file, and says so.
func TestInstructionsChangedOnResume(t *testing.T) {
	t.Parallel()
	dir, logDir := t.TempDir(), t.TempDir()
	agents := writeAgents(t, dir, "old rules")
	in, err := session.ReadInstruction("AGENTS.md", agents)
	if err != nil {
		t.Fatal(err)
	}
	srv := newServer(t)
	srv.SetDefault(ollamatest.TextTurn("ok"))
	s := newSession(t, srv, session.Options{Model: "qwen3:8b", LogDir: logDir, Instructions: []session.Instruction{in}})
	r := startLogged(t, s)
	send(t, s, "hello")
	r.turn()
	s.Close()

	writeAgents(t, dir, "new rules")
	srv2 := newServer(t)
	srv2.SetDefault(ollamatest.TextTurn("ok"))
	s2, _ := resume(t, session.Options{Client: srv2.Client(), Host: srv2.Host(), LogDir: logDir}, logDir, s.ID())
	r2 := newReader(t, s2)
	s2.Start()
	send(t, s2, "more")
	evs := r2.turn()
	said := strings.Join(notices(evs), "\n")
	if !strings.Contains(said, "AGENTS.md") || !strings.Contains(said, "changed since this session began") {
		t.Errorf("no notice of the changed file: %q", said)
	}
	if got := systemMessages(srv2.Requests()[0].Messages); !slices.Equal(got, []string{"new rules"}) {
		t.Errorf("resumed request opens with %q, want the current file", got)
	}
}

// TestInstructionsFileTooLarge: a file over the cap is refused, naming it.
func TestInstructionsFileTooLarge(t *testing.T) {
	t.Parallel()
	p := writeAgents(t, t.TempDir(), strings.Repeat("x", session.MaxInstructionBytes+1))
	_, err := session.ReadInstruction("AGENTS.md", p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "64 KiB") {
		t.Fatalf("err %v, want one naming %s and the cap", err, p)
	}
}
