package mcp

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
)

// samplingSecret is a credential the manager knows (another server's
// token): a server that plants it in a request must not get it through.
const samplingSecret = "sk-sampling-secret-0123456789"

// samplerServer is an in-process server whose tool "sample" sends the
// request req builds (sampling/createMessage) and returns the answer's
// text, or the error as an error result; it records whether the client
// declared sampling.
type samplerServer struct {
	srv      *mcpserver.MCPServer
	mu       sync.Mutex
	declared []bool
}

func newSamplerServer(req func() mcpgo.CreateMessageRequest) *samplerServer {
	ss := &samplerServer{}
	hooks := &mcpserver.Hooks{}
	hooks.AddAfterInitialize(func(_ context.Context, _ any, r *mcpgo.InitializeRequest, _ *mcpgo.InitializeResult) {
		ss.mu.Lock()
		ss.declared = append(ss.declared, r.Params.Capabilities.Sampling != nil)
		ss.mu.Unlock()
	})
	// On the stateless era each request's _meta declares it.
	hooks.AddBeforeListTools(func(ctx context.Context, _ any, _ *mcpgo.ListToolsRequest) {
		if info := mcpserver.RequestProtocolInfoFromContext(ctx); info != nil && info.Modern {
			ss.mu.Lock()
			ss.declared = append(ss.declared, info.ClientCapabilities.Sampling != nil)
			ss.mu.Unlock()
		}
	})
	ss.srv = mcpserver.NewMCPServer("sampler", "1", mcpserver.WithHooks(hooks))
	ss.srv.AddTool(mcpgo.NewTool("sample"), func(ctx context.Context, _ mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		res, err := ss.srv.RequestSampling(ctx, req()) //nolint:staticcheck // deprecated in protocol 2026-07-28; latch pins a legacy one
		if err != nil {
			return mcpgo.NewToolResultError("sampling failed: " + err.Error()), nil
		}
		text, _ := mcpgo.AsTextContent(res.Content)
		if text == nil {
			return mcpgo.NewToolResultError("no text"), nil
		}
		return mcpgo.NewToolResultText(res.Model + ": " + text.Text + " (" + res.StopReason + ")"), nil
	})
	return ss
}

// hostileSampling plants escapes and a credential in every text of a
// request, with an image among its content and a huge token limit.
func hostileSampling() mcpgo.CreateMessageRequest {
	plant := mcptestutil.Plant(samplingSecret)
	var r mcpgo.CreateMessageRequest
	r.SystemPrompt = "system " + plant
	r.MaxTokens = 1 << 30
	r.ModelPreferences = &mcpgo.ModelPreferences{Hints: []mcpgo.ModelHint{{Name: "hint " + plant}}}
	r.Messages = []mcpgo.SamplingMessage{
		{Role: mcpgo.RoleUser, Content: mcpgo.NewTextContent("user " + plant)},
		{Role: "system", Content: []mcpgo.Content{mcpgo.NewTextContent("two " + plant), mcpgo.NewImageContent("AAAA", "image/png")}},
	}
	return r
}

// samplingManager connects the sampler over in-process with sample as the
// manager's SampleFunc (nil: none), next to a disabled HTTP server whose
// token the manager knows.
func samplingManager(t *testing.T, ss *samplerServer, sample SampleFunc) *Manager {
	t.Helper()
	cfgs := []ServerConfig{
		{Name: "s", Transport: TransportInProcess, InProcess: ss.srv, Timeout: 10 * time.Second},
		{Name: "remote", Transport: TransportHTTP, URL: "https://example.invalid/mcp", Token: samplingSecret, Disabled: true},
	}
	m := New(cfgs, Options{Sample: sample})
	t.Cleanup(m.CloseAll)
	m.Start()
	waitState(t, m, "s", StateConnected, 5*time.Second)
	return m
}

func callSample(t *testing.T, m *Manager) *Result {
	t.Helper()
	res, err := m.Call(context.Background(), "s__sample", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestSamplingHostileRequest: what a server puts in its request reaches
// the session redacted, capped and as text; the answer goes back as the
// assistant's text with the model's name.
func TestSamplingHostileRequest(t *testing.T) {
	ss := newSamplerServer(hostileSampling)
	var got SampleRequest
	var server string
	m := samplingManager(t, ss, func(_ context.Context, srv string, r SampleRequest) (SampleResponse, error) {
		got, server = r, srv
		return SampleResponse{Text: "the answer", Model: "qwen3:8b", Truncated: true}, nil
	})
	res := callSample(t, m)
	if res.IsError || res.Text != "qwen3:8b: the answer (maxTokens)" {
		t.Fatalf("tool result %+v", res)
	}
	if server != "s" {
		t.Errorf("server %q", server)
	}
	all := got.SystemPrompt + strings.Join(got.ModelHints, "")
	for _, msg := range got.Messages {
		all += msg.Text
	}
	if strings.Contains(all, samplingSecret) || !strings.Contains(all, "[redacted]") {
		t.Errorf("the credential is not redacted: %q", all)
	}
	if got.MaxTokens != MaxSampleTokens {
		t.Errorf("max tokens %d, want the cap %d", got.MaxTokens, MaxSampleTokens)
	}
	if len(got.Messages) != 2 || got.Messages[0].Role != "user" || got.Messages[1].Role != "user" ||
		!strings.Contains(got.Messages[1].Text, "an image (image/png)") {
		t.Errorf("messages %+v", got.Messages)
	}
	if !strings.HasPrefix(got.SystemPrompt, "system ") || len(got.ModelHints) != 1 {
		t.Errorf("system prompt %q, hints %q", got.SystemPrompt, got.ModelHints)
	}
}

// TestSamplingRefusedAndCancelled: a refusal reaches the server as an
// error with its text (redacted); a handler blocked on a question ends
// when the server gives up.
func TestSamplingRefusedAndCancelled(t *testing.T) {
	ss := newSamplerServer(hostileSampling)
	m := samplingManager(t, ss, func(context.Context, string, SampleRequest) (SampleResponse, error) {
		return SampleResponse{}, errors.New("the user refused this sampling request " + samplingSecret)
	})
	res := callSample(t, m)
	if !res.IsError || !strings.Contains(res.Text, "the user refused this sampling request") || strings.Contains(res.Text, samplingSecret) {
		t.Fatalf("tool result %+v", res)
	}

	ended := make(chan error, 1)
	ss2 := newSamplerServer(hostileSampling)
	m2 := samplingManager(t, ss2, func(ctx context.Context, _ string, _ SampleRequest) (SampleResponse, error) {
		<-ctx.Done()
		ended <- ctx.Err()
		return SampleResponse{}, ctx.Err()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if res, err := m2.Call(ctx, "s__sample", nil, ""); err == nil && !res.IsError {
		t.Errorf("a call whose context ended succeeded: %+v", res)
	}
	select {
	case <-ended:
	case <-time.After(mcptestutil.HangBound(0)):
		t.Fatal("the sampling handler did not end with its context")
	}
}

// TestSamplingDeclaredOnlyWithHandler: without a SampleFunc latch does not
// declare sampling; a request with tools is refused (sampling.tools is not
// declared).
func TestSamplingDeclaredOnlyWithHandler(t *testing.T) {
	ss := newSamplerServer(hostileSampling)
	samplingManager(t, ss, nil)
	ss2 := newSamplerServer(func() mcpgo.CreateMessageRequest {
		r := hostileSampling()
		r.Tools = []mcpgo.Tool{mcpgo.NewTool("x")}
		return r
	})
	m2 := samplingManager(t, ss2, func(context.Context, string, SampleRequest) (SampleResponse, error) {
		t.Error("a request with tools reached the session")
		return SampleResponse{}, nil
	})
	if res := callSample(t, m2); !res.IsError || !strings.Contains(res.Text, "offers no tools to sampling") {
		t.Errorf("a request with tools: %+v", res)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	ss2.mu.Lock()
	defer ss2.mu.Unlock()
	if len(ss.declared) != 1 || ss.declared[0] || len(ss2.declared) != 1 || !ss2.declared[0] {
		t.Errorf("sampling declared: without a handler %v, with one %v", ss.declared, ss2.declared)
	}
}

// TestPeerEverythingSampling: server-everything offers
// trigger-sampling-request over stdio and streamable HTTP, where latch
// declares sampling, and its request comes back with the answer; over
// legacy SSE latch does not declare it, and the tool is not there.
func TestPeerEverythingSampling(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range peerTransports {
		t.Run(transport, func(t *testing.T) {
			cfg := peerEverything(t, bin, transport, 30*time.Second)
			var got SampleRequest
			m, _, _ := peerConnectOpts(t, Options{Sample: func(_ context.Context, _ string, r SampleRequest) (SampleResponse, error) {
				got = r
				return SampleResponse{Text: "a fake answer", Model: "qwen3:8b"}, nil
			}}, cfg)
			_, ok := m.Lookup("every__trigger-sampling-request")
			if transport == TransportSSE {
				if ok {
					t.Fatal("over legacy SSE, sampling was declared")
				}
				return
			}
			if !ok {
				t.Fatal("trigger-sampling-request is not offered: sampling was not declared")
			}
			res := peerCall(t, m, "every__trigger-sampling-request", map[string]any{"prompt": "say hi", "maxTokens": 42}, "")
			if !strings.Contains(res.Text, "a fake answer") || !strings.Contains(res.Text, "qwen3:8b") {
				t.Errorf("result %q", res.Text)
			}
			if got.MaxTokens != 42 || got.SystemPrompt != "You are a helpful test server." ||
				len(got.Messages) != 1 || !strings.Contains(got.Messages[0].Text, "say hi") {
				t.Errorf("request %+v", got)
			}
		})
	}
}
