package session

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Ranking tools by embeddings (docs/MODELS.md: "Too many tools"). With
// ollama.embed_model set, the tool budget ranks the offerable tools by
// how close each tool's definition is, in the embedding model's space, to
// the recent user messages, instead of by shared words (rankTools):
//
//   - a tool's text is its model-facing name, title and description
//     (toolText), embedded once and kept by its definition digest: an
//     unchanged tool is never embedded again, a changed one is;
//   - the last recentUsers user messages are embedded each on its own
//     (and kept while they are in that window, so a turn embeds only its
//     new message), and a tool scores the sum of its cosine similarity to
//     each, weighted as the lexical ranking weighs words: the last message
//     3, the one before 2, older 1;
//   - everything not yet embedded goes in one /api/embed request, bounded
//     by embedTimeout; it runs in the turn's goroutine, before the chat
//     request.
//
// When that request fails (the model is missing or cannot embed, Ollama
// is down or slow), the turn ranks by words instead, and a notice says so
// once (again only if the error changes or after a success).

// embedTimeout bounds one /api/embed request.
const embedTimeout = 10 * time.Second

// embedErrChars caps the error quoted in the fallback notice.
const embedErrChars = 300

// embedCache holds the vectors of the tool budget's ranking. Guarded by
// Session.mu.
type embedCache struct {
	tools  map[string][]float32 // by toolKey
	users  map[string][]float32 // by text, the recent user messages only
	failed string               // the error last said in a notice, "" after a success
}

// toolKey identifies what a tool's vector was made of: its definition
// digest and the text embedded (the model-facing name and title are not
// in the digest).
func toolKey(t Tool) string { return t.Digest + "\x00" + toolText(t) }

// toolText is what is embedded of a tool.
func toolText(t Tool) string {
	s := t.Name
	if t.Title != "" {
		s += "\n" + t.Title
	}
	if t.Description != "" {
		s += "\n" + t.Description
	}
	return s
}

// embedScores scores tools against the recent user messages (oldest
// first) by embeddings, embedding what is not cached yet; all is every
// connected tool (the cache keeps theirs). It returns nil when there is
// nothing to score by or the embedding failed (after saying so).
func (s *Session) embedScores(ctx context.Context, model string, tools, all []Tool, users []string) []float64 {
	var texts, keys []string
	queued := map[string]bool{}
	s.mu.Lock()
	if s.embeds.tools == nil {
		s.embeds.tools, s.embeds.users = map[string][]float32{}, map[string][]float32{}
	}
	for _, t := range tools {
		if k := toolKey(t); s.embeds.tools[k] == nil && !queued[k] {
			queued[k] = true
			texts, keys = append(texts, toolText(t)), append(keys, k)
		}
	}
	nTools := len(texts)
	for _, u := range users {
		if u != "" && s.embeds.users[u] == nil && !queued["\x01"+u] {
			queued["\x01"+u] = true
			texts, keys = append(texts, u), append(keys, u)
		}
	}
	s.mu.Unlock()

	if len(texts) > 0 {
		ectx, cancel := context.WithTimeout(ctx, embedTimeout)
		resp, err := s.client.Embed(ectx, &api.EmbedRequest{Model: model, Input: texts})
		cancel()
		if err == nil && len(resp.Embeddings) != len(texts) {
			err = fmt.Errorf("got %d embeddings for %d inputs", len(resp.Embeddings), len(texts))
		}
		if err != nil {
			if ctx.Err() == nil { // a cancelled turn has nothing to say
				s.noteEmbedFailed(model, err)
			}
			return nil
		}
		s.mu.Lock()
		for i, v := range resp.Embeddings {
			if i < nTools {
				s.embeds.tools[keys[i]] = v
			} else {
				s.embeds.users[keys[i]] = v
			}
		}
		s.mu.Unlock()
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	s.embeds.failed = ""
	s.pruneEmbedsLocked(all, users)
	var qs [][]float32
	var ws []float64
	for i, u := range users {
		if v := s.embeds.users[u]; v != nil {
			qs = append(qs, v)
			ws = append(ws, float64(userWeight(i, len(users))))
		}
	}
	if len(qs) == 0 {
		return nil
	}
	scores := make([]float64, len(tools))
	for i, t := range tools {
		v := s.embeds.tools[toolKey(t)]
		for j, q := range qs {
			scores[i] += ws[j] * cosine(v, q)
		}
	}
	return scores
}

// pruneEmbedsLocked forgets the vectors of user messages out of the
// window, and, when the tool cache has grown well past the connected
// tools, those of tools no longer connected (or since changed).
func (s *Session) pruneEmbedsLocked(all []Tool, users []string) {
	keep := map[string]bool{}
	for _, u := range users {
		keep[u] = true
	}
	for u := range s.embeds.users {
		if !keep[u] {
			delete(s.embeds.users, u)
		}
	}
	if len(s.embeds.tools) <= 2*len(all)+32 {
		return
	}
	live := map[string]bool{}
	for _, t := range all {
		live[toolKey(t)] = true
	}
	for k := range s.embeds.tools {
		if !live[k] {
			delete(s.embeds.tools, k)
		}
	}
}

// noteEmbedFailed says, once per error, that the tools are ranked by
// words this turn because the embedding failed.
func (s *Session) noteEmbedFailed(model string, err error) {
	msg := err.Error()
	if len(msg) > embedErrChars {
		msg = strings.ToValidUTF8(msg[:embedErrChars], "") + "…"
	}
	s.mu.Lock()
	same := s.embeds.failed == msg
	s.embeds.failed = msg
	s.mu.Unlock()
	if same {
		return
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
		"cannot rank tools by embeddings with %s (ollama.embed_model): %s; ranking them by their words instead",
		model, msg)})
}

// cosine is the cosine similarity of two vectors; 0 when either is zero
// or they differ in length.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
