package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// resHarness is the UI over a real session whose servers (cfgs) are
// connected, and a fake Ollama.
func resHarness(t *testing.T, w, h int, o session.Options) *harness {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	t.Cleanup(ol.Close)
	o.Client, o.Host, o.Model, o.ID = ol.Client(), "127.0.0.1:11434", "qwen3:8b", "20261129-120000-abcdef"
	sess := session.New(o)
	sub := sess.Subscribe()
	t.Cleanup(sess.Close)
	m := New(Options{Backend: sess, Events: sub, Styles: themes.Default(), FrameInterval: -1, Now: func() time.Time { return fixedNow },
		DarkBackground: true, Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.Ascii})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	sess.StartServers()
	hs := &harness{t: t, srv: ol, sess: sess, sub: sub, m: m}
	want := 0
	for _, c := range o.Servers {
		if !c.Disabled {
			want++
		}
	}
	hs.until(func() bool { c, _, _ := m.serverCounts(); return c == want })
	return hs
}

// pump runs a command and hands back to the model what the resource code
// waits for, and what that starts in turn.
func (h *harness) pump(cmd tea.Cmd) {
	h.t.Helper()
	for _, msg := range runCmd(cmd) {
		switch msg.(type) {
		case resListMsg, resCompMsg, resourcesMsg, attachSentMsg, cmdDoneMsg, promptValuesMsg:
			_, next := h.m.Update(msg)
			h.pump(next)
		}
	}
}

// tab presses Tab and runs what it asks of the servers.
func (h *harness) tab() { h.pump(h.key(tea.KeyTab)) }

// resServer is the in-process resource server as "res".
func resServer(plant string) session.ServerConfig {
	return session.ServerConfig{Name: "res", Transport: "inprocess", InProcess: mcptestutil.ResourceServer(plant)}
}

// TestResourcesListingGolden: /resources lists a server's resources and
// templates (URI, MIME type, name, description) and what it offers.
func TestResourcesListingGolden(t *testing.T) {
	h := resHarness(t, 80, 24, session.Options{Servers: []session.ServerConfig{resServer("")}})
	h.typeText("/resources")
	h.pump(h.key(tea.KeyEnter))
	v := h.m.View()
	for _, want := range []string{"res: 5 resources, 1 template · watch · completes", "test://img/dot.png  image/png",
		"dot — about dot", "test://notes/{name}  text/plain", "note — a note by name"} {
		if !strings.Contains(v, want) {
			t.Errorf("/resources lacks %q:\n%s", want, v)
		}
	}
	golden.RequireEqual(t, []byte(v))
}

// TestAttachmentCardGolden: a message naming resources shows, under it, a
// card per attachment: text (cut or not) and a blob described.
func TestAttachmentCardGolden(t *testing.T) {
	// The big attachment is over the context: let Ollama cut it, so the
	// reply comes (the refusal is TestOverLongMessageBackInTheInput's).
	h := resHarness(t, 80, 24, session.Options{Servers: []session.ServerConfig{resServer("")}, Truncate: true})
	h.srv.Script(ollamatest.TextTurn("Read them."))
	h.typeText("sum up @res:test://notes/readme.txt @res:test://notes/big.txt @res:test://bin/data.bin")
	h.pump(h.key(tea.KeyEnter))
	h.untilTurnDone()
	v := h.m.View()
	for _, want := range []string{"⊕ attached @res:test://notes/readme.txt · text · text/plain · 8 B",
		"cut: the first", "⊘ described, not sent: @res:test://bin/data.bin"} {
		if !strings.Contains(v, want) {
			t.Errorf("the chat lacks %q:\n%s", want, v)
		}
	}
	golden.RequireEqual(t, []byte(v))
}

// TestAttachUnreadableKeepsText: a resource that cannot be read fails the
// send, naming server and URI; the text is back in the input and nothing
// reached the model.
func TestAttachUnreadableKeepsText(t *testing.T) {
	h := resHarness(t, 100, 30, session.Options{Servers: []session.ServerConfig{resServer("")}})
	text := "look at @res:test://broken please"
	h.typeText(text)
	h.pump(h.key(tea.KeyEnter))
	if got := h.m.input.value(); got != text {
		t.Errorf("input after the failed send: %q", got)
	}
	if v := h.m.View(); !strings.Contains(v, "cannot attach @res:test://broken: res: cannot read test://broken") {
		t.Errorf("no error naming the resource:\n%s", v)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("%d requests reached the model", n)
	}
}

// TestAtCompletionAndAttachEverything: against server-everything, @ and
// Tab complete the server, its resources and a template (the variable's
// value through completion/complete); the message sent attaches both,
// their cards show, the model gets them; a tool's resource links are on
// its card; a watched resource's update is shown.
func TestAtCompletionAndAttachEverything(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	h := resHarness(t, 120, 40, session.Options{Servers: []session.ServerConfig{
		{Name: "every", Command: bin, Args: []string{"stdio"}}}, Policy: permissions.Policy{Mode: permissions.Auto},
		// The attachments and server-everything's tools pass Ollama's
		// default context: let it cut, as this is not about the context.
		Truncate: true, NoAutoCompact: true})
	h.typeText("see @ev")
	h.tab()
	if got := h.m.input.value(); got != "see @every:" {
		t.Fatalf("after @ev Tab: %q", got)
	}
	h.tab()
	if got := h.m.input.value(); got != "see @every:demo://resource/" {
		t.Fatalf("after @every: Tab: %q", got)
	}
	if pop := h.m.completionPopup(); !strings.Contains(pop, "static/document/features.md") {
		t.Errorf("the popup lacks the resources:\n%s", pop)
	}
	h.typeText("dynamic/t")
	h.tab()
	if got := h.m.input.value(); got != "see @every:demo://resource/dynamic/text/" {
		t.Fatalf("after the template's text Tab: %q", got)
	}
	h.typeText("4")
	h.tab()
	if got := h.m.input.value(); got != "see @every:demo://resource/dynamic/text/4 " {
		t.Fatalf("after the variable Tab: %q", got)
	}
	h.typeText("and @every:demo://resource/static/document/feat")
	h.tab()
	want := "see @every:demo://resource/dynamic/text/4 and @every:demo://resource/static/document/features.md "
	if got := h.m.input.value(); got != want {
		t.Fatalf("after the resource Tab: %q", got)
	}
	links := api.NewToolCallFunctionArguments()
	links.Set("count", 2)
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_links",
		Function: api.ToolCallFunction{Name: "every__get-resource-links", Arguments: links}}}}}},
		ollamatest.TextTurn("Both read."))
	h.pump(h.key(tea.KeyEnter))
	h.untilTurnDone()
	v := h.m.View()
	for _, w := range []string{"⊕ attached @every:demo://resource/dynamic/text/4 · text · text/plain",
		"⊕ attached @every:demo://resource/static/document/features.md · text · text/markdown",
		"resource: @every:demo://resource/dynamic/blob/1", "resource: @every:demo://resource/dynamic/text/2"} {
		if !strings.Contains(v, w) {
			t.Errorf("the screen lacks %q:\n%s", w, v)
		}
	}
	msg := h.srv.Requests()[0].Messages[0]
	if !strings.Contains(msg.Content, "Resource 4: This is a plaintext resource") || !strings.Contains(msg.Content, "[end of every:demo://resource/static/document/features.md]") {
		t.Errorf("the model's message: %.400q", msg.Content)
	}

	h.typeText("/resources every watch demo://resource/static/document/features.md")
	h.pump(h.key(tea.KeyEnter))
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_toggle",
		Function: api.ToolCallFunction{Name: "every__toggle-subscriber-updates", Arguments: api.NewToolCallFunctionArguments()}}}}}})
	h.send("updates on")
	h.until(func() bool {
		return strings.Contains(h.m.View(), "every: resource updated: demo://resource/static/document/features.md")
	})
	h.srv.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_toggle2",
		Function: api.ToolCallFunction{Name: "every__toggle-subscriber-updates", Arguments: api.NewToolCallFunctionArguments()}}}}}})
	h.send("updates off")
}

// TestResourcesHostile: what a hostile server puts in its resources'
// names, URIs, descriptions, contents and completions reaches the screen
// inert, with the credential it planted redacted.
func TestResourcesHostile(t *testing.T) {
	const secret = "hostile-secret-RRRR7777"
	plant := mcptestutil.Plant(secret)
	h := resHarness(t, 120, 60, session.Options{Servers: []session.ServerConfig{resServer(plant),
		{Name: "lit", Transport: "http", URL: "https://lit.example/mcp", Token: secret, Disabled: true}}})
	h.typeText("/resources res")
	h.pump(h.key(tea.KeyEnter))
	h.typeText("@res:test://pl")
	h.tab()
	h.m.input.reset()
	h.typeText("@res:test://notes/")
	h.tab()
	h.m.input.reset()
	h.typeText("read @res:test://notes/readme.txt and @res:test://notes/x")
	h.pump(h.key(tea.KeyEnter))
	h.untilTurnDone()
	h.typeText("@res:test://notes/")
	h.tab()
	for _, v := range []string{h.m.View(), h.m.completionPopup()} {
		if bad := mcptestutil.FirstForbidden(v); bad != "" {
			t.Errorf("the screen holds %q:\n%s", bad, v)
		}
		if strings.Contains(v, secret) {
			t.Errorf("the screen shows the secret:\n%s", v)
		}
	}
	if v := h.m.View(); !strings.Contains(v, "test://plant/") || !strings.Contains(v, "[redacted]") {
		t.Errorf("the planted resource is not listed, redacted:\n%s", v)
	}
}

// TestResourceUpdateStormOnScreen: a server floods updates of resources
// nobody watches, and of one that is watched: the chat shows only the
// watched one's, a few, and /resources counts the others as ignored.
func TestResourceUpdateStormOnScreen(t *testing.T) {
	srv := mcptestutil.ResourceServer("")
	h := resHarness(t, 80, 24, session.Options{Servers: []session.ServerConfig{
		{Name: "res", Transport: "inprocess", InProcess: srv}}})
	h.typeText("/resources res watch test://notes/readme.txt")
	h.pump(h.key(tea.KeyEnter))
	start := time.Now()
	for i := range 2000 {
		mcptestutil.UpdateResource(srv, fmt.Sprintf("test://notes/other-%d.txt", i))
		if i%100 == 0 {
			mcptestutil.UpdateResource(srv, "test://notes/readme.txt")
		}
		if i%50 == 49 {
			time.Sleep(5 * time.Millisecond) // mcp-go drops what its queue cannot hold
		}
	}
	// mcp-go drops a notification its queue cannot hold: the watched
	// resource changes again until its update is shown.
	for deadline := time.Now().Add(mcptestutil.HangBound(10 * time.Second)); !strings.Contains(h.m.View(), "res: resource updated: test://notes/readme.txt"); {
		if time.Now().After(deadline) {
			t.Fatalf("no update of the watched resource shown:\n%s", h.m.View())
		}
		mcptestutil.UpdateResource(srv, "test://notes/readme.txt")
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		if evs, ok := h.sub.Next(ctx); ok {
			h.m.Update(eventsMsg{events: evs})
		}
		cancel()
	}
	storm := time.Since(start)
	h.typeText("/resources res")
	h.pump(h.key(tea.KeyEnter))
	v := h.m.View()
	if !strings.Contains(v, "watched: test://notes/readme.txt") || !strings.Contains(v, "ignored: ") ||
		!strings.Contains(v, " updates of resources not watched") {
		t.Errorf("/resources does not count the ignored updates:\n%s", v)
	}
	shown := 0
	for _, e := range h.m.chat.entries {
		if strings.Contains(e.text, "other-") {
			t.Fatalf("an update of a resource not watched is shown: %q", e.text)
		}
		if strings.Contains(e.text, "resource updated") {
			shown++
		}
	}
	// The session publishes one a second at most.
	if limit := 2 + int(storm/time.Second); shown < 1 || shown > limit {
		t.Errorf("%d updates shown for 20 of the watched resource in %s, want 1 to %d", shown, storm, limit)
	}
}
