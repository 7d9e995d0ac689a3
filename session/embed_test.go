package session_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

var embedModel = ollamatest.Model{Name: "nomic-embed-text", Family: "nomic-bert", Capabilities: []string{"embedding"}}

// embedHarness is a session on a fake Ollama (a tools model and an
// embedding model) holding the big server (60 tools) with a budget of 10,
// ranking by embeddings with embed.
func embedHarness(t *testing.T, embed string) (*toolHarness, *mcpserver.MCPServer) {
	t.Helper()
	ol := newServer(t, toolsModel, embedModel)
	big := bigServer()
	s := newSession(t, ol, session.Options{Model: toolsModel.Name, MaxTools: 10, EmbedModel: embed,
		Servers: []session.ServerConfig{{Name: "big", Transport: "inprocess", InProcess: big}}})
	h := &toolHarness{t: t, ol: ol, sess: s, r: newReader(t, s)}
	s.StartServers()
	mcptestutil.WaitFor(t, timeout, "every tool listed", func() bool {
		tools, err := s.Tools("")
		return err == nil && len(tools) == 60
	})
	return h, big
}

// closest is the n tools closest to the question by the fake's vectors,
// as the session should rank them: the name, title and description
// embedded, cosine similarity, ties in the order the tools came in.
func closest(t *testing.T, s *session.Session, question string, n int) []string {
	t.Helper()
	tools, err := s.Tools("")
	if err != nil {
		t.Fatal(err)
	}
	q := ollamatest.Vector(question)
	score := make([]float64, len(tools))
	for i, tl := range tools {
		v := ollamatest.Vector(strings.Join([]string{tl.Name, tl.Title, tl.Description}, "\n"))
		for j := range v {
			score[i] += float64(v[j]) * float64(q[j])
		}
	}
	idx := make([]int, len(tools))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return score[idx[a]] > score[idx[b]] })
	var out []string
	for _, i := range idx[:n] {
		out = append(out, tools[i].Name)
	}
	sort.Strings(out)
	return out
}

// TestEmbedRankingOffersTheClosestTools: with embed_model set, the request
// carries the 10 tools whose definitions are closest to the question;
// every tool is embedded once, in one request with the question; the next
// turn embeds only its new message; a tool whose definition changes is
// embedded again, alone.
func TestEmbedRankingOffersTheClosestTools(t *testing.T) {
	t.Parallel()
	h, srv := embedHarness(t, embedModel.Name)
	h.ol.Script(ollamatest.TextTurn("sunny"), ollamatest.TextTurn("still sunny"), ollamatest.TextTurn("ok"))

	q1 := "What is the weather forecast for Paris? Any weather alerts, or rain?"
	send(t, h.sess, q1)
	evs := h.r.turn()
	got := offered(h.ol.WaitRequests(1, timeout)[0])
	sort.Strings(got)
	if want := closest(t, h.sess, q1, 10); !slices.Equal(got, want) {
		t.Errorf("offered %v, want the closest %v", got, want)
	}
	if !slices.Contains(got, "big__weather_forecast") || !slices.Contains(got, "big__weather_alerts") {
		t.Errorf("offered %v without the weather tools", got)
	}
	if n := h.ol.EmbedInputs(); n != 61 {
		t.Errorf("embedded %d inputs, want the 60 tools and the question", n)
	}
	for _, n := range noticesOf(evs) {
		if strings.Contains(n, "embeddings") {
			t.Errorf("notice %q", n)
		}
	}

	// The same tools: only the new message is embedded.
	send(t, h.sess, "and tomorrow in Lyon?")
	h.r.turn()
	texts := h.ol.EmbedTexts()
	if len(texts) != 62 || texts[61] != "and tomorrow in Lyon?" {
		t.Errorf("the second turn embedded %q, want only its message", texts[61:])
	}

	// A changed definition is embedded again, and only it.
	newDesc := "Weather forecast for a city, by the hour."
	srv.AddTool(mcpgo.NewTool("weather_forecast", mcpgo.WithDescription(newDesc)),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText("ok"), nil
		})
	mcptestutil.WaitFor(t, timeout, "the changed tool listed", func() bool {
		tools, _ := h.sess.Tools("big")
		return slices.ContainsFunc(tools, func(tl session.Tool) bool { return tl.Description == newDesc })
	})
	send(t, h.sess, "and the forecast by the hour?")
	h.r.turn()
	texts = h.ol.EmbedTexts()
	want := []string{"big__weather_forecast\n" + newDesc, "and the forecast by the hour?"}
	if !slices.Equal(texts[62:], want) {
		t.Errorf("the third turn embedded %q, want %q", texts[62:], want)
	}
}

// TestEmbedFailureFallsBackToWords: an embed model that is missing, or
// cannot embed, ranks by words: the turn goes on with the weather tools,
// and one notice names the model and the error, not repeated next turn.
func TestEmbedFailureFallsBackToWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ model, err string }{
		{"no-such-embedder", "model 'no-such-embedder' not found"},
		{toolsModel.Name, "this model does not support embeddings"},
	} {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			h, _ := embedHarness(t, tc.model)
			h.ol.Script(ollamatest.TextTurn("sunny"), ollamatest.TextTurn("still sunny"))
			send(t, h.sess, "What is the weather forecast for Paris? Any weather alerts, or rain?")
			evs := h.r.turn()
			got := offered(h.ol.WaitRequests(1, timeout)[0])
			if len(got) != 10 || !slices.Contains(got, "big__weather_forecast") {
				t.Errorf("offered %v, want 10 with the weather tools", got)
			}
			var said []string
			for _, n := range noticesOf(evs) {
				if strings.Contains(n, "embeddings") {
					said = append(said, n)
				}
			}
			if len(said) != 1 {
				t.Fatalf("notices %q, want one about the embeddings", said)
			}
			containsAll(t, said[0], "cannot rank tools by embeddings with "+tc.model, tc.err, "by their words")
			send(t, h.sess, "and tomorrow?")
			for _, n := range noticesOf(h.r.turn()) {
				if strings.Contains(n, "embeddings") {
					t.Errorf("said again: %q", n)
				}
			}
			if len(h.ol.WaitRequests(2, timeout)) != 2 {
				t.Error("the second turn was not sent")
			}
		})
	}
}
