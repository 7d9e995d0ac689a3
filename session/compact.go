package session

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"latch/session/compaction"
)

// Compaction (docs/SESSIONS.md, "Compaction"): the older part of the
// conversation is replaced, for the model only, by a summary the current
// model writes. The history keeps every message, and so does the log; what
// changes is the model's view of it (modelHistoryLocked), which request
// and Context both read, so no request can be built from another view.
// The system prompt and project instructions (instructions.go) are sent
// apart from the history: never summarized. The last CompactKeepTurns
// turns are kept verbatim, and a cut never falls before a call still
// waiting (owed or parked): it falls at a person's message, so a call and
// its answer stay on the same side.

// DefaultCompactAt is the share of the context the last prompt must pass
// for an automatic compaction before the next turn (ollama.compact_at).
const DefaultCompactAt = 0.8

// CompactKeepTurns is how many of the last turns a compaction keeps
// verbatim.
const CompactKeepTurns = compaction.KeepTurns

// summaryIntro opens the message that stands for the compacted messages
// (compaction.SummaryIntro).
const summaryIntro = compaction.SummaryIntro

// compactState is the session's compaction: the model's view of the
// history and the one running, if any. Under Session.mu.
type compactState struct {
	at     float64            // automatic threshold (share of num_ctx); 0: off
	view   compactView        // what the model sees of the history
	cancel context.CancelFunc // of the running compaction; nil when none
	// firedFor is the last prompt an automatic compaction ran for (it
	// runs once for each), and autoOff turns it off: Esc cancelled one.
	firedFor sentPrompt
	autoOff  bool
	// regained is what the last compaction freed and next the prompt
	// it left (estimated tokens), shown until the next reply's counts.
	regained, next int
}

// compactView is the model's view of the history: history[:upTo] is
// replaced by summary (upTo 0: the whole history is sent).
type compactView struct {
	upTo    int
	summary string
}

// compactAt is Options' threshold as the session keeps it.
func compactAt(o Options) float64 {
	switch {
	case o.NoAutoCompact:
		return 0
	case o.CompactAt > 0 && o.CompactAt < 1:
		return o.CompactAt
	}
	return DefaultCompactAt
}

// modelHistoryLocked is the history as the model sees it: with the
// compacted messages replaced by their summary. Callers hold mu.
func (s *Session) modelHistoryLocked() []api.Message {
	v := s.cp.view
	if v.upTo <= 0 || v.upTo > len(s.history) {
		return s.history
	}
	out := make([]api.Message, 0, 1+len(s.history)-v.upTo)
	out = append(out, api.Message{Role: "user", Content: summaryIntro + v.summary})
	return append(out, s.history[v.upTo:]...)
}

// rawConversationLocked is the whole history, uncompacted, then the
// message being sent if Ollama has not taken it yet (unsent.go): the
// turns a compaction counts, the newest among them. A cut always falls
// before the unsent message (the last turns are kept). Callers hold mu.
func (s *Session) rawConversationLocked() []api.Message {
	return s.withUnsentLocked(s.history)
}

// ErrNothingToCompact means the conversation is too short to compact:
// the last turns are kept whole.
var ErrNothingToCompact = errors.New("nothing to compact")

// Compact replaces the older part of the conversation, for the model,
// with a summary the current model writes (focus, if given, says what it
// should keep). It runs in the background like a turn (ErrBusy while one
// runs; Cancel or CancelCompaction stops it) and its steps are published
// as compaction events; a summary that fails changes nothing.
func (s *Session) Compact(focus string) error {
	s.mu.Lock()
	switch {
	case s.cancel != nil:
		s.mu.Unlock()
		return ErrBusy
	case s.model == "":
		s.mu.Unlock()
		return ErrNoModel
	case compaction.Cut(s.rawConversationLocked(), s.waitingLocked()) <= s.cp.view.upTo:
		s.mu.Unlock()
		return &UserError{Msg: fmt.Sprintf("/compact: nothing to compact yet: the last %d turns are always kept whole", CompactKeepTurns),
			Err: ErrNothingToCompact}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	done, turn := s.done, s.turn
	s.mu.Unlock()
	go func() {
		defer close(done)
		defer cancel()
		s.compact(ctx, compactRun{turn: turn, focus: strings.TrimSpace(focus), manual: true})
	}()
	return nil
}

// CancelCompaction stops a running compaction, if any, and reports
// whether there was one. In an automatic one, the turn then goes on with
// the whole history, and no other automatic compaction runs in this
// session (/compact still does).
func (s *Session) CancelCompaction() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cp.cancel == nil {
		return false
	}
	s.cp.cancel()
	return true
}

// compactRun is what one compaction is asked.
type compactRun struct {
	turn    int
	focus   string
	auto    bool
	usedPct int
	manual  bool // a /compact: it holds the session as a turn does (Compact)
}

// releaseLocked lets go of what a compaction holds, before its end is
// published: whoever sees the end may send at once. Callers hold mu.
func (s *Session) releaseLocked(run compactRun) {
	s.cp.cancel = nil
	if run.manual {
		s.cancel = nil
	}
}

// compact writes the summary and, when it is good, makes it the model's
// view of the older messages. It reports whether it did.
func (s *Session) compact(ctx context.Context, run compactRun) bool {
	s.mu.Lock()
	full := s.rawConversationLocked()
	cut := compaction.Cut(full, s.waitingLocked())
	prior := s.cp.view
	if cut <= prior.upTo {
		s.releaseLocked(run)
		s.mu.Unlock()
		return false
	}
	part := slices.Clone(s.history[prior.upTo:cut])
	first, last := compaction.TurnsOf(full, 0, cut, s.turn)
	prompts := compaction.UserCount(full[:cut])
	model := s.model
	req := &api.ChatRequest{Model: model, Messages: compaction.SummaryPrompt(prior.summary, part, run.focus),
		Options: s.requestOptionsLocked()}
	if s.keepAlive != nil {
		req.KeepAlive = &api.Duration{Duration: *s.keepAlive}
	}
	if slices.Contains(s.caps[model], "thinking") {
		req.Think = &api.ThinkValue{Value: false} // the summary is what counts
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.cp.cancel = cancel
	s.mu.Unlock()
	ev := CompactionEvent{Auto: run.auto, Turn: run.turn, UsedPct: run.usedPct, Focus: run.focus, Messages: cut,
		FirstTurn: first, LastTurn: last, Prompts: prompts}
	start := ev
	start.Header, start.Step = s.header(TypeCompaction), CompactStarted
	s.publish(&start)

	summary, step, why := s.summarize(cctx, req)
	if replaced := estimateMessages(part) + estimateTokens(prior.summary); step == CompactDone &&
		estimateTokens(summaryIntro+summary) >= replaced {
		step, why = CompactFailed, fmt.Sprintf("the summary (about %d tokens) is no shorter than what it would replace "+
			"(about %d): it would regain nothing", estimateTokens(summaryIntro+summary), replaced)
	}
	if step != CompactDone {
		s.mu.Lock()
		if step == CompactCancelled && run.auto && ctx.Err() == nil {
			s.cp.autoOff = true
			why = "the turn goes on with the whole conversation; no more automatic compaction in this session (/compact does it when you want)"
		}
		s.releaseLocked(run)
		s.mu.Unlock()
		end := ev
		end.Header, end.Step, end.Reason = s.header(TypeCompaction), step, why
		s.publish(&end)
		return false
	}
	s.mu.Lock()
	before := s.promptSizeLocked()
	s.cp.view = compactView{upTo: cut, summary: summary}
	after, counted := s.calibratedLocked(model, s.promptSizeLocked())
	if counted {
		before = s.cx.last.prompt + s.cx.last.eval
	}
	s.cp.regained, s.cp.next = max(before-after, 0), after
	s.cx.last = sentPrompt{} // the counts were of the whole history
	s.releaseLocked(run)
	s.mu.Unlock()
	end := ev
	end.Header, end.Step, end.Summary, end.Before, end.After = s.header(TypeCompaction), CompactDone, summary, before, after
	s.publish(&end)
	return true
}

// promptSizeLocked is the estimated size of the next prompt, in tokens:
// the instructions, the model's view of the history (and the message
// being sent) and the tools last sent. Callers hold mu.
func (s *Session) promptSizeLocked() int {
	sent := append(instructionMessages(s.instructions), s.conversationLocked()...)
	return estimateParts(sent, s.cx.last.tools).Total()
}

// summarize streams the summary; step is CompactDone with the summary,
// or CompactFailed or CompactCancelled with why.
func (s *Session) summarize(ctx context.Context, req *api.ChatRequest) (summary, step, why string) {
	var b strings.Builder
	var last api.ChatResponse
	err := s.chatStream(ctx, req, func(resp api.ChatResponse) error {
		last = resp
		if c := resp.Message.Content; c != "" {
			b.WriteString(c)
			s.publish(&CompactionDelta{Header: s.header(TypeCompactionDelta), Text: c})
		}
		return nil
	})
	text := strings.TrimSpace(b.String())
	switch {
	case ctx.Err() != nil && !last.Done:
		return "", CompactCancelled, "cancelled"
	case err != nil:
		return "", CompactFailed, "the model could not write the summary: " + s.describe(err, req.Model)
	case !last.Done:
		return "", CompactFailed, "the summary broke off: the connection to Ollama closed before its end"
	case last.DoneReason == "length":
		return "", CompactFailed, "the summary was cut off at the length limit (done_reason \"length\"): " +
			"raise num_predict, or /compact with a narrower focus"
	case text == "":
		return "", CompactFailed, "the model's summary was empty"
	}
	return text, CompactDone, ""
}

// autoCompactDue reports whether the last prompt passed the threshold,
// or the next one (the message being sent with the conversation) would
// not fit the context at all, and how full it was (percent); it counts
// the compaction as fired for the last prompt, so that each prompt sets
// off at most one.
func (s *Session) autoCompactDue() (bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.cx.last
	numCtx, _ := s.numCtxLocked(s.model)
	if s.cp.at <= 0 || s.cp.autoOff || numCtx <= 0 {
		return false, 0
	}
	next, known := s.calibratedLocked(s.model, s.promptSizeLocked())
	used := 0
	switch {
	case known && l != s.cp.firedFor && float64(l.prompt+l.eval) >= s.cp.at*float64(numCtx):
		used = l.prompt + l.eval
		s.cp.firedFor = l
	case next >= numCtx:
		// The message being sent does not fit with the conversation:
		// Ollama would refuse it. Compacted first, it may.
		used = next
	default:
		return false, 0
	}
	if compaction.Cut(s.rawConversationLocked(), s.waitingLocked()) <= s.cp.view.upTo {
		return false, 0
	}
	return true, used * 100 / numCtx
}

// calibratedLocked is est, an estimate of a prompt for model, scaled by
// what Ollama counted of the last prompt against latch's estimate of it,
// and whether there was such a count. Callers hold mu.
func (s *Session) calibratedLocked(model string, est int) (int, bool) {
	l := s.cx.last
	if !l.ok || l.model != model || l.est <= 0 || l.prompt <= 0 {
		return est, false
	}
	return est * l.prompt / l.est, true
}

// runTurnCompacting is runTurn, after an automatic compaction when the
// last prompt passed the threshold: Esc (CancelCompaction) ends the
// compaction, not the turn.
func (s *Session) runTurnCompacting(ctx context.Context, turn int, done chan struct{}) {
	if due, pct := s.autoCompactDue(); due && ctx.Err() == nil {
		s.compact(ctx, compactRun{turn: turn, auto: true, usedPct: pct})
	}
	s.runTurn(ctx, turn, done, nil)
}

// UncompactResult is what Uncompact did.
type UncompactResult struct {
	Messages int // the messages the model sees again
	Size     int // the estimated size of the next prompt, in tokens
	NumCtx   int // the context in effect, 0 if unknown
}

// Uncompact gives the model the whole history again from the next turn,
// when it fits the context in effect; when it does not, nothing changes
// and the error says so.
func (s *Session) Uncompact() (UncompactResult, error) {
	s.mu.Lock()
	var r UncompactResult
	switch {
	case s.cancel != nil:
		s.mu.Unlock()
		return r, ErrBusy
	case s.cp.view.upTo == 0:
		s.mu.Unlock()
		return r, &UserError{Msg: "/uncompact: the conversation is not compacted"}
	}
	prior := s.cp.view
	s.cp.view = compactView{}
	r.Messages, r.Size = prior.upTo, s.promptSizeLocked()
	r.NumCtx, _ = s.numCtxLocked(s.model)
	if r.NumCtx > 0 && r.Size > r.NumCtx {
		s.cp.view = prior
		s.mu.Unlock()
		return r, &UserError{Msg: fmt.Sprintf("/uncompact: the whole conversation is about %d tokens, more than the context of %d: "+
			"it stays compacted (raise the context with /context NUM first)", r.Size, r.NumCtx)}
	}
	s.cx.last, s.cp.regained, s.cp.next = sentPrompt{}, 0, 0
	s.mu.Unlock()
	s.publish(&CompactionEvent{Header: s.header(TypeCompaction), Step: CompactUndone, Messages: prior.upTo})
	return r, nil
}

// replay applies a logged compaction event to a resumed view, history
// being the conversation replayed so far: the cut is right before the
// person's message that follows the e.Prompts replaced.
func (v *compactView) replay(e *CompactionEvent, history []api.Message) {
	switch e.Step {
	case CompactDone:
		upTo := e.Messages
		if e.Prompts > 0 {
			upTo = len(history) // none kept yet: the summary stands for all
			n := 0
			for i, m := range history {
				if m.Role != "user" {
					continue
				}
				if n == e.Prompts {
					upTo = i
					break
				}
				n++
			}
		}
		*v = compactView{upTo: upTo, summary: e.Summary}
	case CompactUndone:
		*v = compactView{}
	}
}

// waitingLocked are the ids of the calls still waiting: owed by a resumed
// turn, or parked for a decision. Callers hold mu.
func (s *Session) waitingLocked() map[string]bool {
	out := map[string]bool{}
	for _, c := range s.owed {
		out[c.ID] = true
	}
	for _, ap := range s.approvals.Pending() {
		out[ap.CallID] = true
	}
	return out
}
