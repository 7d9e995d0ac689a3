package session

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// The context budget (docs/OLLAMA.md, "Context length"): without
// options.num_ctx Ollama runs a model with a small default context (4,096
// tokens on a CPU), whatever it was trained for, and by default a prompt
// longer than the context is cut silently: 200, done_reason "stop", no
// error (v0.17.4 keeps about num_ctx tokens, v0.32.15 about half). latch
// asks Ollama to refuse such a prompt instead (toolong.go), unless
// ollama.truncate lets it cut, and a server older than v0.12.4 cuts
// whatever it is asked. What the model saw is prompt_eval_count, which
// counts the whole prompt even when the runner reuses its cache: a
// reliable witness. This file follows the budget: the num_ctx in effect,
// what the last reply used, an estimate of each part of the prompt, and
// whether the model saw less than was sent.

// estimateTokens is the simple estimator of a text's size in tokens:
// bytes/4, rounded up. Real tokenizers give about 4 bytes a token for
// English prose and fewer for code, JSON and non-Latin scripts, so it
// tends to underestimate those; it is used only where the server gives no
// count (the parts of a prompt, and a prompt before it is sent).
func estimateTokens(s string) int { return (len(s) + 3) / 4 }

// messageOverhead is what a chat template adds around each message (role
// markers and separators), in tokens, as a rough constant.
const messageOverhead = 4

// estimateMessage is a message's estimated size: its content and tool
// calls. Its thinking is left out: chat templates drop the thinking of
// earlier replies.
func estimateMessage(m api.Message) int {
	n := messageOverhead + estimateTokens(m.Content)
	for _, tc := range m.ToolCalls {
		n += messageOverhead + estimateTokens(tc.Function.Name) + estimateTokens(tc.Function.Arguments.String())
	}
	return n
}

func estimateMessages(ms []api.Message) int {
	n := 0
	for _, m := range ms {
		n += estimateMessage(m)
	}
	return n
}

// estimateTools is the tool definitions' estimated size, as sent (JSON).
func estimateTools(tools api.Tools) int {
	if len(tools) == 0 {
		return 0
	}
	b, err := json.Marshal(tools)
	if err != nil {
		return 0
	}
	return estimateTokens(string(b))
}

// ContextEstimate is the estimated size of each part of the prompt, in
// tokens (bytes/4; see estimateTokens).
type ContextEstimate struct {
	System    int // system messages
	Tools     int // tool definitions, as last sent
	History   int // the conversation but the last reply
	LastReply int // the model's last reply
}

// Total is the whole estimate.
func (e ContextEstimate) Total() int { return e.System + e.Tools + e.History + e.LastReply }

// estimateParts splits a conversation (and its tool definitions' size)
// into the parts of a ContextEstimate. The last reply is the last
// assistant message, when the conversation ends with one.
func estimateParts(ms []api.Message, tools int) ContextEstimate {
	e := ContextEstimate{Tools: tools}
	last := -1
	if n := len(ms); n > 0 && ms[n-1].Role == "assistant" {
		last = n - 1
	}
	for i, m := range ms {
		switch {
		case m.Role == "system":
			e.System += estimateMessage(m)
		case i == last:
			e.LastReply = estimateMessage(m)
		default:
			e.History += estimateMessage(m)
		}
	}
	return e
}

// Where the num_ctx in effect comes from (ContextInfo.Source).
const (
	CtxFromSession = "session" // /context NUM
	CtxFromConfig  = "config"  // ollama.options.num_ctx
	CtxFromServer  = "server"  // the loaded model's, from /api/ps (Ollama's default)
)

// ContextInfo is the context budget as the session knows it now.
type ContextInfo struct {
	Model string
	// NumCtx is the context in effect, in tokens (0: not known yet), and
	// Source where it comes from (CtxFrom…).
	NumCtx int
	Source string
	// Trained is the model's trained maximum (/api/show), 0 if unknown.
	Trained int
	// Prompt and Eval are Ollama's counts of the last reply:
	// prompt_eval_count (what the model saw) and eval_count. Both are 0
	// before the first reply (and after /clear or a model switch).
	Prompt, Eval int
	// Truncated: the model saw less than the last prompt sent.
	Truncated bool
	// Est is the estimate of the conversation now, by part.
	Est ContextEstimate
	// Instructions are the system prompt and project instructions sent
	// first, each with its estimated cost (part of Est.System).
	Instructions []InstructionCost
	// Regained is what the last compaction freed and Next the size of
	// the next prompt it left, in estimated tokens, both until the next
	// reply's counts (compact.go).
	Regained, Next int
	// Compacted is how many messages of the conversation the model sees
	// as a summary, and Summary that summary's estimated size (compact.go).
	Compacted, Summary int
}

// Used is the context the last reply took: its prompt and its own tokens.
func (c ContextInfo) Used() int { return c.Prompt + c.Eval }

// ctxState is the session's knowledge of the context budget; under mu.
type ctxState struct {
	override int            // /context NUM; 0: none
	loaded   map[string]int // the loaded runner's context, by model (/api/ps)
	trained  map[string]int // the trained maximum, by model (/api/show)
	last     sentPrompt     // the last request, and Ollama's counts of it
	warned   int            // the last turn warned about the context
	psTurn   int            // the last turn /api/ps was asked in
}

// warnOnce reports whether turn has had no warning about the context
// yet, and counts one: a turn is warned once. The caller holds s.mu.
func (c *ctxState) warnOnce(turn int) bool {
	if c.warned == turn {
		return false
	}
	c.warned = turn
	return true
}

// sentPrompt is a request as sent and what Ollama said of it.
type sentPrompt struct {
	ok           bool
	model        string
	msgs         int    // messages sent
	sum          uint64 // fingerprint of those messages
	tools        int    // the tool definitions' estimate
	est          int    // the whole prompt's estimate
	prompt, eval int
	truncated    bool
}

// fingerprint is a hash of the messages' roles and contents, to tell a
// conversation that only grew from one that was cleared or replaced.
func fingerprint(ms []api.Message) uint64 {
	h := fnv.New64a()
	for _, m := range ms {
		_, _ = h.Write([]byte(m.Role))
		_, _ = h.Write([]byte{0})
		_, _ = h.Write([]byte(m.Content))
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// grewFrom reports whether the messages are the last request's, with more
// after them, sent to the same model with no fewer tool definitions.
func (p sentPrompt) grewFrom(model string, ms []api.Message, tools int) bool {
	return p.ok && p.model == model && len(ms) >= p.msgs && tools >= p.tools && fingerprint(ms[:p.msgs]) == p.sum
}

// intOption reads a numeric model option as JSON or Go gives it.
func intOption(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int64:
		return int(n)
	case float64:
		if n > 0 && n < math.MaxInt32 {
			return int(n)
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
	}
	return 0
}

// numCtxLocked is the context in effect for model and where it comes
// from: /context, the config's options, else what /api/ps last said of the
// loaded model (0 when none is known). Callers hold mu.
func (s *Session) numCtxLocked(model string) (int, string) {
	if s.cx.override > 0 {
		return s.cx.override, CtxFromSession
	}
	if n := intOption(s.options["num_ctx"]); n > 0 {
		return n, CtxFromConfig
	}
	if n := s.cx.loaded[model]; n > 0 {
		return n, CtxFromServer
	}
	return 0, ""
}

// requestOptionsLocked are the model options of a request: the configured
// ones, with num_ctx set by /context. The configured map is never changed.
func (s *Session) requestOptionsLocked() map[string]any {
	if s.cx.override <= 0 {
		return s.options
	}
	out := make(map[string]any, len(s.options)+1)
	for k, v := range s.options {
		out[k] = v
	}
	out["num_ctx"] = s.cx.override
	return out
}

// Context is the context budget now: cheap (no request to Ollama).
func (s *Session) Context() ContextInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	info := ContextInfo{Model: s.model, Trained: s.cx.trained[s.model]}
	info.NumCtx, info.Source = s.numCtxLocked(s.model)
	sent := append(instructionMessages(s.instructions), s.conversationLocked()...)
	info.Est = estimateParts(sent, s.cx.last.tools)
	if !s.cx.last.ok {
		info.Regained, info.Next = s.cp.regained, s.cp.next
	}
	if v := s.cp.view; v.upTo > 0 {
		info.Compacted, info.Summary = v.upTo, estimateTokens(summaryIntro+v.summary)
	}
	info.Instructions = instructionCosts(s.instructions)
	if l := s.cx.last; l.ok && l.model == s.model && len(sent) >= l.msgs {
		info.Prompt, info.Eval, info.Truncated = l.prompt, l.eval, l.truncated
	}
	return info
}

// NumCtxChange is what SetNumCtx did.
type NumCtxChange struct {
	Asked   int  // the size asked for
	NumCtx  int  // the size set (0: the override is gone)
	Trained int  // the model's trained maximum, 0 if unknown
	Capped  bool // Asked was over Trained: NumCtx is Trained
}

// SetNumCtx sets the context for the rest of the session, sent as
// options.num_ctx from the next request on; n <= 0 drops the setting (the
// config's, or Ollama's default, applies again). It asks Ollama for the
// model's trained maximum and caps n at it.
func (s *Session) SetNumCtx(ctx context.Context, n int) (NumCtxChange, error) {
	c := NumCtxChange{Asked: n}
	if n > 0 {
		model := s.Model()
		if model == "" {
			return c, ErrNoModel
		}
		trained, err := s.showTrained(ctx, model)
		if err != nil {
			return c, s.wrap(err, model)
		}
		c.Trained = trained
		c.NumCtx = n
		if c.Trained > 0 && n > c.Trained {
			c.NumCtx, c.Capped = c.Trained, true
		}
	}
	s.mu.Lock()
	s.cx.override = c.NumCtx
	s.mu.Unlock()
	return c, nil
}

// noteTrained records a model's trained maximum (from /api/show).
func (s *Session) noteTrained(model string, n int) {
	if n <= 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cx.trained == nil {
		s.cx.trained = map[string]int{}
	}
	s.cx.trained[model] = n
}

// trainedMax is the model's trained maximum context, asked of /api/show
// (with a short timeout) when not known yet; 0 when it cannot be learnt.
func (s *Session) trainedMax(model string) int {
	s.mu.Lock()
	n := s.cx.trained[model]
	s.mu.Unlock()
	if n > 0 {
		return n
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	n, _ = s.showTrained(ctx, model)
	return n
}

// showTrained asks /api/show for the model's trained maximum context and
// records it.
func (s *Session) showTrained(ctx context.Context, model string) (int, error) {
	show, err := s.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		return 0, err
	}
	n := contextLength(show)
	s.noteTrained(model, n)
	return n, nil
}

// fetchLoaded asks /api/ps for the context the model is loaded with, when
// no num_ctx is set (then Ollama's default is in effect), once a turn. It
// runs in the turn's goroutine, after a reply and before the turn's end is
// published, with a short timeout; a failure leaves what was known.
func (s *Session) fetchLoaded(turn int, model string) {
	s.mu.Lock()
	_, src := s.numCtxLocked(model)
	fixed := src == CtxFromSession || src == CtxFromConfig
	asked := s.cx.psTurn == turn
	s.cx.psTurn = turn
	s.mu.Unlock()
	if fixed || asked {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	ps, err := s.client.ListRunning(ctx)
	if err != nil {
		return
	}
	for _, m := range ps.Models {
		if (sameModel(m.Name, model) || sameModel(m.Model, model)) && m.ContextLength > 0 {
			s.mu.Lock()
			if s.cx.loaded == nil {
				s.cx.loaded = map[string]int{}
			}
			s.cx.loaded[model] = m.ContextLength
			s.mu.Unlock()
			return
		}
	}
}

// sameModel compares model names as Ollama does: no tag means ":latest",
// letter case does not matter.
func sameModel(a, b string) bool {
	tag := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return strings.EqualFold(tag(a), tag(b))
}

// promptCheck is what decides whether a prompt was cut (truncated).
type promptCheck struct {
	prompt     int  // prompt_eval_count: what the model saw
	numCtx     int  // the context in effect, 0 if unknown
	numKeep    int  // options.num_keep in effect (Ollama's default 4)
	est        int  // the estimate of the prompt sent
	prevPrompt int  // prompt_eval_count of the last request, 0 if none
	grew       bool // this request is the last one's with more after it
}

// truncated is the rule: the model saw less than was sent when its count
// of the prompt dropped while the conversation only grew, or sits at the
// context's size (v0.17.4 keeps about num_ctx tokens), or is exactly what
// v0.32.15's cut keeps of a prompt estimated larger (halfCut), or is under
// half the estimate of a prompt that is larger than the context (a tiny
// num_ctx: the server keeps well under it).
func (c promptCheck) truncated() bool {
	switch {
	case c.prompt <= 0:
		return false
	case c.grew && c.prevPrompt > 0 && c.prompt < c.prevPrompt:
		return true
	case c.numCtx > 0 && c.prompt*100 >= c.numCtx*97:
		return true
	case c.numCtx > 0 && c.est > c.prompt && c.halfCut():
		return true
	case c.numCtx > 0 && c.est > c.numCtx && c.prompt*2 < c.est:
		return true
	}
	return false
}

// halfCut reports whether the count is what v0.32.15 keeps of a prompt
// that does not fit: num_keep tokens (one more with the BOS token a model
// adds) and half of the rest, num_ctx − (num_ctx − keep)/2 — 131 of 256
// (llm/llama_server.go, contextShiftPromptLimit). Such a count is under
// the context, so only its exact value tells a cut from a prompt that fit.
func (c promptCheck) halfCut() bool {
	for _, keep := range []int{c.numKeep, c.numKeep + 1} {
		keep = max(0, min(keep, c.numCtx-1))
		if c.prompt == c.numCtx-max((c.numCtx-keep)/2, 1) {
			return true
		}
	}
	return false
}

// numKeepLocked is options.num_keep as the next request sends it, or
// Ollama's default (4). Callers hold mu.
func (s *Session) numKeepLocked() int {
	if v, set := s.options["num_keep"]; set {
		return intOption(v)
	}
	return 4
}

// lostPart says what a cut prompt lost: the tool definitions, when they
// (with the system messages) alone exceed the context, else the oldest
// messages.
func lostPart(e ContextEstimate, numCtx int) string {
	if numCtx > 0 && e.System+e.Tools >= numCtx {
		return fmt.Sprintf("the tool definitions (about %d tokens, more than the whole context)", e.Tools)
	}
	return "the oldest messages"
}

func ctxSource(src string) string {
	switch src {
	case CtxFromSession:
		return "set by /context"
	case CtxFromConfig:
		return "ollama.options.num_ctx"
	case CtxFromServer:
		return "Ollama's default: no num_ctx is set"
	}
	return "unknown"
}

// preflight says, before a request is sent, when its estimate already
// exceeds the context in effect (once a turn). The estimate is calibrated
// by Ollama's count of the last reply when the conversation only grew
// since: that count plus the estimate of what was added.
func (s *Session) preflight(turn int, req *api.ChatRequest) {
	s.mu.Lock()
	numCtx, src := s.numCtxLocked(req.Model)
	tools := estimateTools(req.Tools)
	est := estimateParts(req.Messages, tools)
	total := est.Total()
	if l := s.cx.last; !l.truncated && l.prompt > 0 && l.grewFrom(req.Model, req.Messages, tools) {
		total = l.prompt + l.eval + estimateMessages(req.Messages[min(l.msgs+1, len(req.Messages)):])
	}
	// Asked to refuse (truncate:false), Ollama says so itself if the
	// prompt does not fit: the estimate would only guess it first.
	warn := s.truncate && numCtx > 0 && total > numCtx && s.cx.warnOnce(turn)
	s.mu.Unlock()
	if !warn {
		return
	}
	trained := s.trainedMax(req.Model)
	s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
		"context too small: this prompt is about %d tokens (estimated), over the context of %d (%s); "+
			"Ollama will cut %s without a word. Make room: %s.",
		total, numCtx, ctxSource(src), lostPart(est, numCtx), roomFix(trained, numCtx, len(req.Tools), tools))})
}

// noteReply records Ollama's counts of a finished reply, learns the
// loaded context (once a turn, when no num_ctx is set), and says so when
// the model saw less than was sent.
func (s *Session) noteReply(turn int, r round) {
	if r.req == nil || r.cancelled || r.err != nil || !r.last.Done || r.last.PromptEvalCount <= 0 {
		return
	}
	req := r.req
	s.fetchLoaded(turn, req.Model)
	tools := estimateTools(req.Tools)
	est := estimateParts(req.Messages, tools)
	s.mu.Lock()
	numCtx, src := s.numCtxLocked(req.Model)
	prev := s.cx.last
	grew := prev.grewFrom(req.Model, req.Messages, tools)
	check := promptCheck{prompt: r.last.PromptEvalCount, numCtx: numCtx, numKeep: s.numKeepLocked(), est: est.Total(), grew: grew}
	if grew {
		check.prevPrompt = prev.prompt
	}
	cut := check.truncated()
	s.cx.last = sentPrompt{ok: true, model: req.Model, msgs: len(req.Messages), sum: fingerprint(req.Messages),
		tools: tools, est: est.Total(), prompt: r.last.PromptEvalCount, eval: r.last.EvalCount, truncated: cut}
	warn := cut && s.cx.warnOnce(turn)
	s.mu.Unlock()
	if !warn {
		return
	}
	trained := s.trainedMax(req.Model)
	ctxDesc := "the context"
	if numCtx > 0 {
		ctxDesc = fmt.Sprintf("the context of %d (%s)", numCtx, ctxSource(src))
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
		"context full: the model saw %d tokens of a prompt of about %d; it did not fit %s, and Ollama cut %s "+
			"without a word, so the reply may have missed them. Make room: %s.",
		check.prompt, max(check.est, check.prompt), ctxDesc, lostPart(est, numCtx), roomFix(trained, numCtx, len(req.Tools), tools))})
}
