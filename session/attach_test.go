package session_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// gemma sees images; qwen does not.
var gemma = ollamatest.Model{Name: "gemma3:4b", Family: "gemma3", Capabilities: []string{"completion", "vision"}}

// resourceSession is a session over a fake Ollama and the in-process
// resource server (as "res"), connected, with a reader of its events.
func resourceSession(t *testing.T, model string) (*session.Session, *ollamatest.Server, *reader) {
	t.Helper()
	ol := newServer(t, qwen, gemma)
	s := newSession(t, ol, session.Options{Model: model, Servers: []session.ServerConfig{
		{Name: "res", Transport: "inprocess", InProcess: mcptestutil.ResourceServer("")},
	}})
	r := newReader(t, s)
	s.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.WaitServers(ctx)
	return s, ol, r
}

// attachments are the attachment events among evs.
func attachments(evs []session.Event) []*session.AttachmentEvent {
	var out []*session.AttachmentEvent
	for _, e := range evs {
		if a, ok := e.(*session.AttachmentEvent); ok {
			out = append(out, a)
		}
	}
	return out
}

// TestAttachResources: @SERVER:URI in a message attaches the resource:
// text inline with a header naming server and URI, cut at the cap with a
// note, an image as an image for a vision model, a blob described. The
// person's text is kept as typed, and an event says what was attached.
func TestAttachResources(t *testing.T) {
	s, ol, r := resourceSession(t, "gemma3:4b")
	text := "compare @res:test://notes/readme.txt, @res:test://notes/big.txt and @res:test://img/dot.png (@res:test://bin/data.bin) me@res:x"
	if err := s.Send(text); err != nil {
		t.Fatal(err)
	}
	evs := r.turn()
	if u := one[*session.UserMessage](t, evs); u.Text != text {
		t.Errorf("user_message %q, want the text as typed", u.Text)
	}
	got := attachments(evs)
	var kinds []string
	for _, a := range got {
		kinds = append(kinds, a.URI+" "+a.Kind)
	}
	want := []string{"test://notes/readme.txt text", "test://notes/big.txt text", "test://img/dot.png image", "test://bin/data.bin described"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("attachments %v, want %v", kinds, want)
	}
	if big := got[1]; !big.Cut || big.Size != mcptestutil.BigTextSize || big.Sent != session.AttachTextCap || big.Server != "res" {
		t.Errorf("big.txt: %+v", big)
	}
	if got[3].Size != 300 || got[3].Note == "" {
		t.Errorf("data.bin: %+v", got[3])
	}
	msg := ol.WaitRequests(1, timeout)[0].Messages[0]
	for _, w := range []string{
		text + "\n\n[attached resource res:test://notes/readme.txt (text/plain, 8 bytes)]\nreadme: \n[end of res:test://notes/readme.txt]",
		"[cut: only the first 32768 of 40960 bytes of res:test://notes/big.txt are attached]",
		"[attached image res:test://img/dot.png (image/png, ",
		"[not attached: res:test://bin/data.bin is binary (application/octet-stream, 300 bytes): only text and images are attached]",
	} {
		if !strings.Contains(msg.Content, w) {
			t.Errorf("the model's message lacks %q", w)
		}
	}
	if len(msg.Images) != 1 || !bytes.Equal(msg.Images[0], mcptestutil.DotPNG) {
		t.Errorf("images sent: %d", len(msg.Images))
	}
}

// TestAttachImageToTextModel: a model without vision is sent no image;
// the image is described instead.
func TestAttachImageToTextModel(t *testing.T) {
	s, ol, r := resourceSession(t, "qwen3:8b")
	if err := s.Send("what is @res:test://img/dot.png"); err != nil {
		t.Fatal(err)
	}
	evs := r.turn()
	a := attachments(evs)
	if len(a) != 1 || a[0].Kind != session.AttachDescribed || !strings.Contains(a[0].Note, "qwen3:8b cannot see images") {
		t.Fatalf("attachments: %+v", a)
	}
	msg := ol.WaitRequests(1, timeout)[0].Messages[0]
	if len(msg.Images) != 0 || !strings.Contains(msg.Content, "[not attached: res:test://img/dot.png is binary (image/png,") {
		t.Errorf("message: %d images, %q", len(msg.Images), msg.Content)
	}
}

// TestAttachUnreadable: a resource that cannot be read fails the send
// with an error naming the server and URI; nothing is sent or published.
func TestAttachUnreadable(t *testing.T) {
	s, ol, r := resourceSession(t, "qwen3:8b")
	for _, ref := range []string{"@res:test://broken", "@res:test://nothing/here"} {
		err := s.Send("see " + ref + " and @res:test://notes/readme.txt")
		var ue *session.UserError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "cannot attach "+ref+": res:") ||
			!strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("send with %s: %v", ref, err)
		}
	}
	if n := len(ol.Requests()); n != 0 {
		t.Errorf("%d chat requests after failed sends", n)
	}
	if err := s.Send("plain"); err != nil {
		t.Fatal(err)
	}
	for _, e := range r.turn() {
		if u, ok := e.(*session.UserMessage); ok && u.Text != "plain" {
			t.Errorf("a failed send was published: %q", u.Text)
		}
	}
}

// TestParseAttachments: what counts as @SERVER:URI.
func TestParseAttachments(t *testing.T) {
	servers := []string{"a", "ab", "every"}
	for _, tt := range []struct {
		text string
		want []session.AttachRef
	}{
		{"@every:demo://x/1", []session.AttachRef{{"every", "demo://x/1"}}},
		{"see @ab:u1, then (@a:u2) and @a:u2.", []session.AttachRef{{"ab", "u1"}, {"a", "u2"}}},
		{"mail me@every:x or @nope:y or @every: alone", nil},
		{"@every:f(1) @every:g)", []session.AttachRef{{"every", "f(1)"}, {"every", "g"}}},
		{"tab\t@a:t\nnext @a:n", []session.AttachRef{{"a", "t"}, {"a", "n"}}},
	} {
		if got := session.ParseAttachments(tt.text, servers); !slices.Equal(got, tt.want) {
			t.Errorf("ParseAttachments(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestAttachImageTooLarge: an image over MaxImageBytes is described, not
// sent (nor kept in the session log), even to a model that can see.
func TestAttachImageTooLarge(t *testing.T) {
	srv := mcpserver.NewMCPServer("big", "1.0", mcpserver.WithResourceCapabilities(false, false))
	huge := base64.StdEncoding.EncodeToString(make([]byte, session.MaxImageBytes+1))
	srv.AddResource(mcpgo.NewResource("test://img/huge.png", "huge", mcpgo.WithMIMEType("image/png")),
		func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.BlobResourceContents{URI: "test://img/huge.png", MIMEType: "image/png", Blob: huge}}, nil
		})
	ol := newServer(t, qwen, gemma)
	dir := t.TempDir()
	s := newSession(t, ol, session.Options{Model: "gemma3:4b", LogDir: dir, Servers: []session.ServerConfig{
		{Name: "big", Transport: "inprocess", InProcess: srv}}})
	r := newReader(t, s)
	s.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.WaitServers(ctx)
	if err := s.Send("look at @big:test://img/huge.png"); err != nil {
		t.Fatal(err)
	}
	a := attachments(r.turn())
	if len(a) != 1 || a[0].Kind != session.AttachDescribed || !strings.Contains(a[0].Note, "too large to send (8.0 MB; latch sends images up to 8.0 MB)") {
		t.Fatalf("attachments: %+v", a)
	}
	msg := ol.WaitRequests(1, timeout)[0].Messages[0]
	if len(msg.Images) != 0 || !strings.Contains(msg.Content, "[not attached: big:test://img/huge.png is an image") {
		t.Errorf("message: %d images, %q", len(msg.Images), msg.Content)
	}
	if fi, err := os.Stat(filepath.Join(dir, s.ID()+".jsonl")); err != nil || fi.Size() > 1<<20 {
		t.Errorf("session log: %v, %d bytes", err, fi.Size())
	}
}

// TestWatchesSurviveAReconnect: a new connection has none of the old
// one's subscriptions; the session subscribes again to what the person
// watches, and says so.
func TestWatchesSurviveAReconnect(t *testing.T) {
	var mu sync.Mutex
	subscribes := 0
	hooks := &mcpserver.Hooks{}
	hooks.AddBeforeAny(func(_ context.Context, _ any, method mcpgo.MCPMethod, msg any) {
		// resources/subscribe, or on 2026-07-28 a subscriptions/listen
		// stream naming the resource.
		listen, _ := msg.(*mcpgo.SubscriptionsListenRequest)
		if method == mcpgo.MethodResourcesSubscribe ||
			listen != nil && slices.Contains(listen.Params.Notifications.ResourceSubscriptions, "test://doc") {
			mu.Lock()
			subscribes++
			mu.Unlock()
		}
	})
	srv := mcpserver.NewMCPServer("watched", "1.0", mcpserver.WithResourceCapabilities(true, false), mcpserver.WithHooks(hooks))
	srv.AddResource(mcpgo.NewResource("test://doc", "doc", mcpgo.WithMIMEType("text/plain")),
		func(context.Context, mcpgo.ReadResourceRequest) ([]mcpgo.ResourceContents, error) {
			return []mcpgo.ResourceContents{mcpgo.TextResourceContents{URI: "test://doc", Text: "doc"}}, nil
		})
	ol := newServer(t, qwen)
	s := newSession(t, ol, session.Options{Model: "qwen3:8b", Servers: []session.ServerConfig{
		{Name: "w", Transport: "inprocess", InProcess: srv}}})
	r := newReader(t, s)
	s.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	s.WaitServers(ctx)
	if err := s.WatchResource(ctx, "w", "test://doc"); err != nil {
		t.Fatal(err)
	}
	if err := s.ConnectServer("w"); err != nil { // the /connect of a token rotation
		t.Fatal(err)
	}
	r.until(func(e session.Event) bool {
		n, ok := e.(*session.Notice)
		return ok && n.Text == "w reconnected: watching 1 resource again"
	})
	mu.Lock()
	defer mu.Unlock()
	if subscribes != 2 {
		t.Errorf("%d subscriptions, want 2 (the watch, then again after the reconnect)", subscribes)
	}
	if l, err := s.ListResources(ctx, "w"); err != nil || len(l.Watched) != 1 {
		t.Errorf("watched after the reconnect: %v, %v", l.Watched, err)
	}
}
