package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// TestPeerEverythingPromptsEndToEnd runs each of server-everything's
// prompt kinds, over stdio and streamable HTTP, through a real session
// with the fake Ollama: the card, and what the model was sent.
func TestPeerEverythingPromptsEndToEnd(t *testing.T) {
	bin := mcptestutil.NPMBin(t, "mcp-server-everything")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			cfg := session.ServerConfig{Name: "every", Transport: transport, Timeout: 30 * time.Second}
			if transport == "stdio" {
				cfg.Command, cfg.Args = bin, []string{"stdio"}
			} else {
				cfg.URL = mcptestutil.StartNPMHTTP(t, bin, "streamableHttp") + "/mcp"
			}
			srv := newServer(t, qwen)
			s := newSession(t, srv, session.Options{Model: qwen.Name, Servers: []session.ServerConfig{cfg}})
			r := newReader(t, s)
			s.StartServers()
			waitPrompts(t, s, 4)

			// completable-prompt's values come through completion/complete.
			ctx := context.Background()
			if vals, err := s.CompletePrompt(ctx, "every", "completable-prompt", "department", "Eng", nil); err != nil || !slices.Equal(vals, []string{"Engineering"}) {
				t.Errorf("department Eng: %v, %v", vals, err)
			}
			if vals, err := s.CompletePrompt(ctx, "every", "completable-prompt", "name", "", map[string]string{"department": "Engineering"}); err != nil || !slices.Equal(vals, []string{"Alice", "Bob", "Charlie"}) {
				t.Errorf("names in Engineering: %v, %v", vals, err)
			}
			if err := s.RunPrompt("every", "args-prompt", nil); err == nil || !strings.Contains(err.Error(), "needs city") {
				t.Errorf("args-prompt without city: %v", err)
			}

			for _, tc := range []struct {
				prompt string
				args   map[string]string
				want   []string // what the model is sent, after the history before
			}{
				{"simple-prompt", nil, []string{"This is a simple prompt without arguments."}},
				{"args-prompt", map[string]string{"city": "New York", "state": "NY"}, []string{"What's weather in New York, NY?"}},
				{"completable-prompt", map[string]string{"department": "Engineering", "name": "Alice"}, []string{"Please promote Alice to the head of the Engineering team."}},
				{"resource-prompt", map[string]string{"resourceType": "Text", "resourceId": "1"}, []string{
					"This prompt includes the Text resource with id: 1. Please analyze the following resource:",
					"[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1: This is a plaintext resource created at "}},
			} {
				before := len(s.History())
				srv.Script(ollamatest.TextTurn("done: " + tc.prompt))
				if err := s.RunPrompt("every", tc.prompt, tc.args); err != nil {
					t.Fatalf("%s: %v", tc.prompt, err)
				}
				evs := r.turn()
				cards := of[*session.PromptEvent](evs)
				if len(cards) != 1 || cards[0].Prompt != tc.prompt || len(cards[0].Messages) != len(tc.want) {
					t.Fatalf("%s: cards %+v in %s", tc.prompt, cards, kinds(evs))
				}
				sent := lastRequest(t, srv).Messages[before:]
				if len(sent) != len(tc.want) {
					t.Fatalf("%s: the model was sent %d new messages, want %d: %+v", tc.prompt, len(sent), len(tc.want), sent)
				}
				for i, w := range tc.want {
					if sent[i].Role != "user" || !strings.HasPrefix(sent[i].Content, w) {
						t.Errorf("%s: message %d: %s %q, want user %q", tc.prompt, i, sent[i].Role, sent[i].Content, w)
					}
					if cards[0].Messages[i].Text != sent[i].Content {
						t.Errorf("%s: the card shows %q, the model got %q", tc.prompt, cards[0].Messages[i].Text, sent[i].Content)
					}
				}
			}
		})
	}
}
