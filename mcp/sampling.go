package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// SampleFunc answers a server's sampling/createMessage: the session puts it
// to the gate and the person, and the model answers. It must return when
// ctx ends (the server gave up, the connection closed).
type SampleFunc func(ctx context.Context, server string, req SampleRequest) (SampleResponse, error)

// SampleRequest is a server's request for model time, as latch reads it:
// every string redacted, texts capped, content other than text described.
type SampleRequest struct {
	SystemPrompt string
	Messages     []SampleMessage
	// MaxTokens is the server's token limit, capped at MaxSampleTokens.
	MaxTokens     int
	Temperature   float64
	StopSequences []string
	// ModelHints are the server's model preferences (names it would like),
	// in its order; latch answers with the current model whatever they say.
	ModelHints []string
}

// SampleMessage is one message of a sampling request.
type SampleMessage struct {
	Role string // "user" or "assistant" (anything else reads "user")
	Text string
}

// SampleResponse is the answer returned to the server.
type SampleResponse struct {
	Text  string
	Model string
	// Truncated says the answer stopped at the token limit.
	Truncated bool
}

// Limits on what a server's sampling request may hold; beyond them it is
// cut (texts, with a note) or refused (messages).
const (
	MaxSampleTokens   = 8192
	MaxSampleMessages = 64
	maxSampleText     = 32 << 10
	defaultSampleMax  = 1024
)

// samplingHandler answers one server's sampling requests through the
// manager's SampleFunc. It is both mcp-go's client.SamplingHandler and its
// in-process server.SamplingHandler.
type samplingHandler struct {
	m      *Manager
	server string
}

// CreateMessage reads the request, hands it to the session and returns
// its answer; an error (a refusal) goes back to the server as one.
func (h samplingHandler) CreateMessage(ctx context.Context, req mcpgo.CreateMessageRequest) (*mcpgo.CreateMessageResult, error) {
	if h.m == nil || h.m.opts.Sample == nil {
		return nil, errors.New("latch takes no sampling requests")
	}
	sr, err := h.m.sampleRequest(req.CreateMessageParams)
	if err != nil {
		return nil, err
	}
	res, err := h.m.opts.Sample(ctx, h.server, sr)
	if err != nil {
		return nil, errors.New(h.m.red.apply(err.Error()))
	}
	stop := "endTurn"
	if res.Truncated {
		stop = "maxTokens"
	}
	return &mcpgo.CreateMessageResult{
		SamplingMessage: mcpgo.SamplingMessage{Role: mcpgo.RoleAssistant, Content: mcpgo.NewTextContent(res.Text)},
		Model:           res.Model, StopReason: stop,
	}, nil
}

// sampleRequest reads a request's params into latch's own form, redacted.
func (m *Manager) sampleRequest(p mcpgo.CreateMessageParams) (SampleRequest, error) {
	if len(p.Tools) > 0 || p.ToolChoice != nil {
		return SampleRequest{}, errors.New("latch offers no tools to sampling (the sampling.tools capability is not declared)")
	}
	if len(p.Messages) == 0 {
		return SampleRequest{}, errors.New("a sampling request needs at least one message")
	}
	if len(p.Messages) > MaxSampleMessages {
		return SampleRequest{}, fmt.Errorf("a sampling request of %d messages: latch takes at most %d", len(p.Messages), MaxSampleMessages)
	}
	r := SampleRequest{SystemPrompt: capText(p.SystemPrompt), MaxTokens: p.MaxTokens, Temperature: p.Temperature,
		StopSequences: p.StopSequences}
	if r.MaxTokens <= 0 {
		r.MaxTokens = defaultSampleMax
	}
	r.MaxTokens = min(r.MaxTokens, MaxSampleTokens)
	if len(r.StopSequences) > 8 {
		r.StopSequences = r.StopSequences[:8]
	}
	if p.ModelPreferences != nil {
		for _, h := range p.ModelPreferences.Hints {
			if h.Name != "" && len(r.ModelHints) < 8 {
				r.ModelHints = append(r.ModelHints, capText(h.Name))
			}
		}
	}
	for i, msg := range p.Messages {
		text, err := sampleText(msg.Content)
		if err != nil {
			return SampleRequest{}, fmt.Errorf("message %d: %v", i+1, err)
		}
		role := "user"
		if msg.Role == mcpgo.RoleAssistant {
			role = "assistant"
		}
		r.Messages = append(r.Messages, SampleMessage{Role: role, Text: capText(text)})
	}
	return redactAll(m.red, r), nil
}

// capText cuts a text from a server at maxSampleText bytes, saying so.
func capText(s string) string {
	if len(s) <= maxSampleText {
		return s
	}
	n := maxSampleText
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + fmt.Sprintf("… [cut by latch: %d bytes more]", len(s)-n)
}

// sampleText is a message's content as text: text as it is, an image or
// audio described (only text reaches the model), several blocks joined.
func sampleText(content any) (string, error) {
	c, err := mcpgo.ParseSamplingContent(content)
	if err != nil {
		return "", err
	}
	switch c := c.(type) {
	case []mcpgo.Content:
		parts := make([]string, 0, len(c))
		for _, b := range c {
			t, err := blockText(b)
			if err != nil {
				return "", err
			}
			parts = append(parts, t)
		}
		return strings.Join(parts, "\n"), nil
	default:
		return blockText(c)
	}
}

// blockText is one content block as text.
func blockText(c any) (string, error) {
	switch c := c.(type) {
	case mcpgo.TextContent:
		return c.Text, nil
	case *mcpgo.TextContent:
		return c.Text, nil
	case mcpgo.ImageContent:
		return "[an image (" + c.MIMEType + ") the server sent: latch gives the model only text]", nil
	case *mcpgo.ImageContent:
		return "[an image (" + c.MIMEType + ") the server sent: latch gives the model only text]", nil
	case mcpgo.AudioContent:
		return "[audio (" + c.MIMEType + ") the server sent: latch gives the model only text]", nil
	case *mcpgo.AudioContent:
		return "[audio (" + c.MIMEType + ") the server sent: latch gives the model only text]", nil
	case nil:
		return "", errors.New("no content")
	}
	return "", fmt.Errorf("content of type %T is not taken (text, image or audio)", c)
}
