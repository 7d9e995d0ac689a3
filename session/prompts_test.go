package session_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// promptSession is a session over the kit prompt server (in process) and
// the fake Ollama serving model, logged in dir; it waits for the prompts.
func promptSession(t *testing.T, srv *ollamatest.Server, model, dir string) *session.Session {
	t.Helper()
	s := newSession(t, srv, session.Options{Model: model, ID: "20261201-000000-prompt", LogDir: dir,
		Servers: []session.ServerConfig{{Name: "kit", Transport: "inprocess", InProcess: mcptestutil.PromptServer()}}})
	s.StartServers()
	waitPrompts(t, s, 4)
	return s
}

func waitPrompts(t *testing.T, s *session.Session, n int) {
	t.Helper()
	mcptestutil.WaitFor(t, timeout, "the prompts", func() bool { return len(s.Prompts()) >= n })
}

// lastRequest is the last chat request the fake Ollama got.
func lastRequest(t *testing.T, srv *ollamatest.Server) api.ChatRequest {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no chat request")
	}
	return reqs[len(reqs)-1]
}

// TestRunPromptArguments: the required arguments are checked (the error
// names the missing one and lists the arguments), unknown ones refused,
// and a prompt run with its arguments puts its message in the
// conversation, shows a card, and runs the turn: the model is sent the
// prompt's text as the user's.
func TestRunPromptArguments(t *testing.T) {
	srv := newServer(t, qwen)
	s := promptSession(t, srv, qwen.Name, "")
	r := newReader(t, s)
	err := s.RunPrompt("kit", "weather", map[string]string{"state": "NY"})
	if err == nil || !strings.Contains(err.Error(), "needs city") || !strings.Contains(err.Error(), "city (required), state") {
		t.Errorf("no city: %v", err)
	}
	if err := s.RunPrompt("kit", "weather", map[string]string{"city": "Paris", "town": "x"}); err == nil || !strings.Contains(err.Error(), "no argument town") {
		t.Errorf("an unknown argument: %v", err)
	}
	if err := s.RunPrompt("kit", "nope", nil); err == nil || !strings.Contains(err.Error(), `no prompt "nope"`) || !strings.Contains(err.Error(), "weather") {
		t.Errorf("an unknown prompt: %v", err)
	}
	srv.Script(ollamatest.TextTurn("Sunny."))
	if err := s.RunPrompt("kit", "weather", map[string]string{"city": "New York", "state": "NY"}); err != nil {
		t.Fatal(err)
	}
	evs := r.turn()
	cards := of[*session.PromptEvent](evs)
	if len(cards) != 1 {
		t.Fatalf("prompt cards: %s", kinds(evs))
	}
	c := cards[0]
	if c.Server != "kit" || c.Prompt != "weather" || c.Title != "Weather" || c.Arguments["city"] != "New York" ||
		len(c.Messages) != 1 || c.Messages[0].Text != "What's the weather in New York, NY?" {
		t.Errorf("card: %+v", c)
	}
	if evs[0] != session.Event(c) {
		t.Errorf("the card is not first: %s", kinds(evs))
	}
	req := lastRequest(t, srv)
	if m := req.Messages[len(req.Messages)-1]; m.Role != "user" || m.Content != "What's the weather in New York, NY?" {
		t.Errorf("the model was sent %+v", m)
	}
	if got := s.History(); len(got) != 2 || got[1].Content != "Sunny." {
		t.Errorf("history: %+v", got)
	}
	// Like Send: refused while a turn runs.
	srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{Content: "slow"}}, Delay: 300 * time.Millisecond})
	if err := s.Send("hi"); err != nil {
		t.Fatal(err)
	}
	if err := s.RunPrompt("kit", "greet", nil); !errors.Is(err, session.ErrBusy) {
		t.Errorf("during a turn: %v, want ErrBusy", err)
	}
	r.turn()
}

// TestRunPromptImagesAndResources: a prompt with an image, an embedded
// text resource, a binary resource and an assistant message. To a model
// that can see, the image goes as an image; to one that cannot, it is
// described; the text resource is inline, the binary one described;
// nothing is dropped. The messages are logged: a resumed session sends
// them (the image too) again.
func TestRunPromptImagesAndResources(t *testing.T) {
	seer := ollamatest.Model{Name: "gemma3:4b", Capabilities: []string{"completion", "vision"}}
	srv := newServer(t, seer, tiny)
	for _, tc := range []struct {
		model  string
		vision bool
	}{{seer.Name, true}, {tiny.Name, false}} {
		t.Run(tc.model, func(t *testing.T) {
			dir := t.TempDir()
			s := promptSession(t, srv, tc.model, dir)
			r := newReader(t, s)
			srv.Script(ollamatest.TextTurn("A lighthouse."))
			if err := s.RunPrompt("kit", "picture", nil); err != nil {
				t.Fatal(err)
			}
			evs := r.turn()
			req := lastRequest(t, srv)
			checkPictureSent(t, req.Messages, tc.vision)
			card := of[*session.PromptEvent](evs)[0]
			if len(card.Messages) != 5 || !strings.Contains(card.Messages[1].Text, "[image (image/png)") {
				t.Errorf("card: %+v", card.Messages)
			}
			s.Close()

			// Resumed: the model is sent the same messages again.
			s2, _, err := session.Resume(session.Options{Client: srv.Client(), Host: srv.Host(), Model: tc.model}, dir, "20261201-000000-prompt")
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			r2 := newReader(t, s2)
			srv.Script(ollamatest.TextTurn("Still a lighthouse."))
			if err := s2.Send("and now?"); err != nil {
				t.Fatal(err)
			}
			r2.turn()
			checkPictureSent(t, lastRequest(t, srv).Messages, tc.vision)
		})
	}
}

// checkPictureSent checks the picture prompt's messages as the model got
// them (the first five of msgs).
func checkPictureSent(t *testing.T, msgs []api.Message, vision bool) {
	t.Helper()
	if len(msgs) < 5 {
		t.Fatalf("the model got %d messages", len(msgs))
	}
	want := []string{"user:Describe this picture.", "user:[image (image/png), 24 bytes]", "user:[resource kit://notes/1 (text/plain)]\nNote one: the picture is of a lighthouse.",
		"user:[resource kit://blob/1 (application/octet-stream), 4 bytes of binary data: not sent to the model]", "assistant:I will describe it."}
	for i, w := range want {
		if got := msgs[i].Role + ":" + msgs[i].Content; !strings.HasPrefix(got, w) {
			t.Errorf("message %d: %q, want it to start %q", i, got, w)
		}
	}
	img := msgs[1]
	switch {
	case vision && (len(img.Images) != 1 || !bytes.Equal(img.Images[0], mcptestutil.PromptPNG)):
		t.Errorf("a vision model was not sent the image: %+v", img)
	case !vision && (len(img.Images) != 0 || !strings.Contains(img.Content, "cannot see images")):
		t.Errorf("a model without vision: %+v, want the image described", img)
	}
}

// TestHostilePromptThroughSession: a server's planted escapes and a token
// it knows, in every text of its prompt, reach neither the events (nor
// the log) with the token, nor the screen with an escape.
func TestHostilePromptThroughSession(t *testing.T) {
	const token = "tok-5e1d0c9b8a7f6e5d"
	srv := newServer(t, qwen)
	dir := t.TempDir()
	s := newSession(t, srv, session.Options{Model: qwen.Name, ID: "20261201-000000-evilpr", LogDir: dir,
		Servers: []session.ServerConfig{{Name: "evil", Transport: "inprocess", InProcess: mcptestutil.HostilePromptServer(mcptestutil.Plant(token)), Token: token}}})
	r := newReader(t, s)
	s.StartServers()
	waitPrompts(t, s, 1)
	srv.Script(ollamatest.TextTurn("ok"))
	if err := s.RunPrompt("evil", "evil", nil); err != nil {
		t.Fatal(err)
	}
	evs := r.turn()
	if len(of[*session.PromptEvent](evs)) != 1 {
		t.Fatalf("no card: %s", kinds(evs))
	}
	for _, e := range evs {
		wire, err := session.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(wire), token) {
			t.Errorf("%s carries the token: %s", e.Head().Type, wire)
		}
		if bad := mcptestutil.FirstForbidden(strings.ReplaceAll(displayStrings(session.Display(e)), "\n", "")); bad != "" {
			t.Errorf("%s on screen holds %q", e.Head().Type, bad)
		}
	}
	if req := lastRequest(t, srv); strings.Contains(req.Messages[0].Content, token) {
		t.Errorf("the model was sent the token: %q", req.Messages[0].Content)
	}
}

// displayStrings is every string of a display-safe prompt card, joined.
func displayStrings(e session.Event) string {
	c, ok := e.(*session.PromptEvent)
	if !ok {
		return ""
	}
	parts := []string{c.Server, c.Prompt, c.Title, c.Description}
	for k, v := range c.Arguments {
		parts = append(parts, k, v)
	}
	for _, m := range c.Messages {
		parts = append(parts, m.Role, m.Text)
	}
	return strings.Join(parts, " ")
}

// TestPromptCompletionThroughSession: CompletePrompt asks the server,
// narrowed by the arguments given.
func TestPromptCompletionThroughSession(t *testing.T) {
	srv := newServer(t, qwen)
	s := promptSession(t, srv, qwen.Name, "")
	vals, err := s.CompletePrompt(context.Background(), "kit", "team", "name", "E", map[string]string{"department": "Sales"})
	if err != nil || len(vals) != 1 || vals[0] != "Eve" {
		t.Errorf("name E in Sales: %v, %v", vals, err)
	}
}

// TestRunPromptCancelled: Cancel (Esc) while the server is slow to give
// the prompt gives the turn back: nothing was published, nothing is
// running, and the next message goes as turn 1.
func TestRunPromptCancelled(t *testing.T) {
	entered := make(chan struct{}, 1)
	slow := mcpserver.NewMCPServer("slow", "1.0", mcpserver.WithPromptCapabilities(false))
	slow.AddPrompt(mcpgo.NewPrompt("wait"), func(ctx context.Context, _ mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		entered <- struct{}{}
		select {
		case <-ctx.Done():
		case <-time.After(timeout):
		}
		return nil, errors.New("gave up")
	})
	srv := newServer(t, qwen)
	s := newSession(t, srv, session.Options{Model: qwen.Name,
		Servers: []session.ServerConfig{{Name: "slow", Transport: "inprocess", InProcess: slow}}})
	r := newReader(t, s)
	s.StartServers()
	waitPrompts(t, s, 1)
	done := make(chan error, 1)
	go func() { done <- s.RunPrompt("slow", "wait", nil) }()
	<-entered
	if !s.Running() {
		t.Error("not running while the prompt is got")
	}
	s.Cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "cancelled") || !strings.Contains(err.Error(), "/slow:wait") {
			t.Errorf("RunPrompt after Cancel: %v", err)
		}
	case <-time.After(timeout):
		t.Fatal("RunPrompt did not return after Cancel")
	}
	if s.Running() {
		t.Error("still running after the cancelled prompt")
	}
	srv.Script(ollamatest.TextTurn("hi"))
	if err := s.Send("hello"); err != nil {
		t.Fatal(err)
	}
	evs := r.until(func(e session.Event) bool { _, ok := e.(*session.TurnDone); return ok })
	if um := of[*session.UserMessage](evs); len(um) != 1 || um[0].Turn != 1 || len(of[*session.PromptEvent](evs)) != 0 {
		t.Errorf("after the cancelled prompt: %s", kinds(evs))
	}
}

// TestRunPromptImageTooLarge: a prompt's image over MaxImageBytes is
// described, not sent, even to a model that can see.
func TestRunPromptImageTooLarge(t *testing.T) {
	seer := ollamatest.Model{Name: "gemma3:4b", Capabilities: []string{"completion", "vision"}}
	ol := newServer(t, seer)
	srv := mcpserver.NewMCPServer("big", "1.0", mcpserver.WithPromptCapabilities(false))
	huge := base64.StdEncoding.EncodeToString(make([]byte, session.MaxImageBytes+1))
	srv.AddPrompt(mcpgo.NewPrompt("poster"), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		return mcpgo.NewGetPromptResult("a poster", []mcpgo.PromptMessage{
			mcpgo.NewPromptMessage(mcpgo.RoleUser, mcpgo.NewImageContent(huge, "image/png"))}), nil
	})
	s := newSession(t, ol, session.Options{Model: seer.Name,
		Servers: []session.ServerConfig{{Name: "big", Transport: "inprocess", InProcess: srv}}})
	s.StartServers()
	waitPrompts(t, s, 1)
	r := newReader(t, s)
	ol.Script(ollamatest.TextTurn("No picture."))
	if err := s.RunPrompt("big", "poster", nil); err != nil {
		t.Fatal(err)
	}
	r.turn()
	msgs := lastRequest(t, ol).Messages
	last := msgs[len(msgs)-1]
	if len(last.Images) != 0 || !strings.Contains(last.Content, "not shown to the model: too large to send") {
		t.Errorf("the model got %d images, %q", len(last.Images), last.Content)
	}
}
