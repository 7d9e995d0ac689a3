package mcp

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
)

// promptNames lists the manager's prompts as "server:name".
func promptNames(m *Manager) []string {
	var out []string
	for _, p := range m.Prompts() {
		out = append(out, p.Server+":"+p.Name)
	}
	return out
}

// promptConnect makes a manager for cfgs, starts it and waits until every
// server is connected (a server with prompts only has no tools to wait
// for). The manager is closed at cleanup.
func promptConnect(t *testing.T, cfgs ...ServerConfig) (*Manager, *events) {
	t.Helper()
	ev := newEvents()
	m := New(cfgs, Options{OnEvent: ev.add})
	t.Cleanup(m.CloseAll)
	m.Start()
	for _, c := range cfgs {
		waitState(t, m, c.Name, StateConnected, 15*time.Second)
	}
	return m, ev
}

// promptEvents are the PromptsChanged events seen so far.
func promptEvents(ev *events) []PromptsChanged {
	ev.mu.Lock()
	defer ev.mu.Unlock()
	var out []PromptsChanged
	for _, e := range ev.all {
		if pc, ok := e.(PromptsChanged); ok {
			out = append(out, pc)
		}
	}
	return out
}

// TestPromptsListedAndRefreshed: a server's prompts are listed, every page
// of them, once it is connected; prompts/list_changed lists them again
// (off the read loop) and says what changed; closing the server drops
// them.
func TestPromptsListedAndRefreshed(t *testing.T) {
	srv := mcptestutil.PromptServer()
	m, ev := promptConnect(t, ServerConfig{Name: "kit", Transport: TransportInProcess, InProcess: srv})
	mcptestutil.WaitFor(t, 5*time.Second, "the prompts", func() bool { return len(m.Prompts()) == 4 })
	if got, want := promptNames(m), []string{"kit:greet", "kit:picture", "kit:team", "kit:weather"}; !slices.Equal(got, want) {
		t.Fatalf("prompts %v, want %v (listed two a page: every page)", got, want)
	}
	weather := m.Prompts()[3]
	if weather.Title != "Weather" || weather.ArgumentNames() != "city (required), state" {
		t.Errorf("weather: %+v, arguments %q", weather, weather.ArgumentNames())
	}
	if pe := promptEvents(ev); len(pe) != 1 || !pe[0].First || pe[0].Prompts != 4 {
		t.Errorf("events after connect: %+v, want one first list of 4", pe)
	}

	srv.AddPrompt(mcpgo.NewPrompt("extra"), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
		return mcpgo.NewGetPromptResult("", nil), nil
	})
	mcptestutil.WaitFor(t, 5*time.Second, "extra listed", func() bool { return len(m.Prompts()) == 5 })
	srv.DeletePrompts("greet")
	mcptestutil.WaitFor(t, 5*time.Second, "greet gone", func() bool { return !slices.Contains(promptNames(m), "kit:greet") })
	var added, removed []string
	for _, e := range promptEvents(ev)[1:] {
		added, removed = append(added, e.Added...), append(removed, e.Removed...)
	}
	if !slices.Equal(added, []string{"extra"}) || !slices.Equal(removed, []string{"greet"}) {
		t.Errorf("changes said: added %v, removed %v", added, removed)
	}

	if err := m.Close("kit"); err != nil {
		t.Fatal(err)
	}
	if got := m.Prompts(); len(got) != 0 {
		t.Errorf("a closed server still lists prompts: %v", got)
	}
}

// TestGetPromptAndComplete: prompts/get with arguments, every kind of
// content converted, and completion/complete narrowed by the arguments
// given so far.
func TestGetPromptAndComplete(t *testing.T) {
	m, _ := promptConnect(t, ServerConfig{Name: "kit", Transport: TransportInProcess, InProcess: mcptestutil.PromptServer()},
		ServerConfig{Name: "echo", Transport: TransportInProcess, InProcess: echoServer()})
	ctx := context.Background()
	res, err := m.GetPrompt(ctx, "kit", "weather", map[string]string{"city": "New York", "state": "NY"})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Text != "What's the weather in New York, NY?" || res.Messages[0].Role != "user" {
		t.Fatalf("weather: %+v, %v", res, err)
	}
	res, err = m.GetPrompt(ctx, "kit", "picture", nil)
	if err != nil {
		t.Fatal(err)
	}
	kinds := []string{}
	for _, msg := range res.Messages {
		kinds = append(kinds, msg.Role+"/"+msg.Kind)
	}
	if want := []string{"user/text", "user/image", "user/resource", "user/resource", "assistant/text"}; !slices.Equal(kinds, want) {
		t.Fatalf("picture: %v, want %v", kinds, want)
	}
	if img := res.Messages[1]; !bytes.Equal(img.Data, mcptestutil.PromptPNG) || img.MIMEType != "image/png" {
		t.Errorf("image: %q %s", img.Data, img.MIMEType)
	}
	if r := res.Messages[2]; r.URI != "kit://notes/1" || !strings.Contains(r.Text, "lighthouse") || r.Data != nil {
		t.Errorf("text resource: %+v", r)
	}
	if r := res.Messages[3]; !bytes.Equal(r.Data, []byte{0, 1, 2, 3}) || r.Text != "" {
		t.Errorf("binary resource: %+v", r)
	}

	vals, err := m.Complete(ctx, "kit", "team", "department", "E", nil)
	if err != nil || !slices.Equal(vals, []string{"Engineering"}) {
		t.Errorf("department E: %v, %v", vals, err)
	}
	vals, err = m.Complete(ctx, "kit", "team", "name", "", map[string]string{"department": "Sales"})
	if err != nil || !slices.Equal(vals, []string{"David", "Eve", "Frank"}) {
		t.Errorf("name in Sales: %v, %v", vals, err)
	}
	// A server without the completions capability is not asked.
	if vals, err := m.Complete(ctx, "echo", "any", "x", "", nil); vals != nil || err != nil {
		t.Errorf("echo (no completions): %v, %v", vals, err)
	}
	if _, err := m.GetPrompt(ctx, "kit", "nope", nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown prompt: %v, want an error naming nope", err)
	}
	_ = m.Close("kit")
	if _, err := m.GetPrompt(ctx, "kit", "greet", nil); !errors.Is(err, ErrNotConnected) || !strings.Contains(err.Error(), "kit") {
		t.Errorf("a closed server: %v", err)
	}
}

// TestHostilePromptsRedacted: a server that plants escapes and a token it
// knows in every text of its prompts: what leaves the manager (the list,
// the messages, the completed values) never holds the token.
func TestHostilePromptsRedacted(t *testing.T) {
	const token = "tok-3f9a61c2e8b7d405"
	plant := mcptestutil.Plant(token)
	m, _ := promptConnect(t, ServerConfig{Name: "evil", Transport: TransportInProcess,
		InProcess: mcptestutil.HostilePromptServer(plant), Token: token})
	mcptestutil.WaitFor(t, 5*time.Second, "the prompt", func() bool { return len(m.Prompts()) == 1 })
	check := func(what, s string) {
		t.Helper()
		if strings.Contains(s, token) {
			t.Errorf("%s holds the token: %q", what, s)
		}
		if !strings.Contains(s, redacted) {
			t.Errorf("%s: %q, want %s in it", what, s, redacted)
		}
	}
	p := m.Prompts()[0]
	check("title", p.Title)
	check("description", p.Description)
	check("argument", p.Arguments[0].Description)
	res, err := m.GetPrompt(context.Background(), "evil", "evil", nil)
	if err != nil {
		t.Fatal(err)
	}
	check("result description", res.Description)
	check("message", res.Messages[0].Text)
	check("resource", res.Messages[1].Text+res.Messages[1].URI)
	vals, err := m.Complete(context.Background(), "evil", "evil", "x", "", nil)
	if err != nil || len(vals) != 1 {
		t.Fatalf("complete: %v %v", vals, err)
	}
	check("completed value", vals[0])
}

// TestPromptListChangedStormCoalesced: a storm of prompts/list_changed
// costs a few prompts/list, not one each, and the list ends right.
func TestPromptListChangedStormCoalesced(t *testing.T) {
	var lists int
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeListPrompts(func(context.Context, any, *mcpgo.ListPromptsRequest) {
		<-mu
		lists++
		mu <- struct{}{}
	})
	srv := mcpserver.NewMCPServer("storm", "1.0", mcpserver.WithPromptCapabilities(true), mcpserver.WithHooks(hooks))
	m, _ := promptConnect(t, ServerConfig{Name: "storm", Transport: TransportInProcess, InProcess: srv})
	for i := range 100 {
		srv.AddPrompt(mcpgo.NewPrompt("p"+string(rune('a'+i%26))+string(rune('a'+i/26))), func(context.Context, mcpgo.GetPromptRequest) (*mcpgo.GetPromptResult, error) {
			return mcpgo.NewGetPromptResult("", nil), nil
		})
	}
	mcptestutil.WaitFor(t, 10*time.Second, "100 prompts", func() bool { return len(m.Prompts()) == 100 })
	<-mu
	n := lists
	mu <- struct{}{}
	if n > 30 {
		t.Errorf("%d prompts/list for 100 list_changed: not coalesced", n)
	}
	t.Logf("%d prompts/list for 100 prompts/list_changed", n)
}
