package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"latch/mcp"
	"latch/permissions"
)

// A server's sampling/createMessage asks for model time. It goes through
// the gate as if it were a call of that server, under its own allow-list
// kind (SERVER@sampling; see permissions.DecideSampling), one at a time per
// server and at most SamplingPerMinute a minute. When the person is asked,
// they see the request, then the answer, and decide twice: whether the
// model answers, and whether the answer is sent. Only the model's answer to
// the server's own messages goes back: nothing of the conversation.

// SamplingPerMinute caps the sampling requests a server may make in a
// minute; more are refused, as is a second one while one is open.
const SamplingPerMinute = 10

// errSampleRefused is what the server is told when the person says no.
var errSampleRefused = errors.New("the user refused this sampling request")

// sampler is the session's state of open sampling requests.
type sampler struct {
	mu     sync.Mutex
	open   map[string]*sampleWait // by request id
	busy   map[string]bool        // servers with a request open
	starts map[string][]time.Time // servers' requests within the last minute
}

// sampleWait is an open request the person may answer or stop.
type sampleWait struct {
	answer chan bool          // the answer to the question being asked, if any
	asking bool               // a question waits for answer
	stop   context.CancelFunc // stops the model while it answers
	halted bool               // the person stopped the model
}

// acquire claims server's one open request, within the rate limit; it
// says why not otherwise.
func (sp *sampler) acquire(server string, now time.Time) (release func(), why string) {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.busy == nil {
		sp.busy, sp.starts, sp.open = map[string]bool{}, map[string][]time.Time{}, map[string]*sampleWait{}
	}
	if sp.busy[server] {
		return nil, server + " already has a sampling request open (one at a time)"
	}
	recent := slices.DeleteFunc(sp.starts[server], func(t time.Time) bool { return now.Sub(t) >= time.Minute })
	if len(recent) >= SamplingPerMinute {
		sp.starts[server] = recent
		return nil, fmt.Sprintf("%s made %d sampling requests within a minute (the limit): refused", server, len(recent))
	}
	sp.starts[server] = append(recent, now)
	sp.busy[server] = true
	return func() {
		sp.mu.Lock()
		delete(sp.busy, server)
		sp.mu.Unlock()
	}, ""
}

// sample answers a server's sampling request (mcp.SampleFunc).
func (s *Session) sample(ctx context.Context, server string, req mcp.SampleRequest) (mcp.SampleResponse, error) {
	first := s.samplingRequestEvent(server, req)
	release, why := s.sampling.acquire(server, time.Now())
	if why != "" {
		s.sampleStep(first, SamplingDenied, permissions.ByPolicy, why)
		return mcp.SampleResponse{}, errors.New("latch refused: " + why)
	}
	defer release()
	w := s.sampling.register(first.RequestID)
	defer s.sampling.unregister(first.RequestID)
	v := s.gate.DecideSampling(server)
	first.Mode = v.Mode.String()
	review := false
	switch v.Decision {
	case permissions.Allow:
		s.sampleStep(first, SamplingAllowed, v.By, v.Reason)
	case permissions.AskUser:
		if err := s.askSample(ctx, w, first, v.Reason); err != nil {
			return mcp.SampleResponse{}, err
		}
		review = true
	default:
		s.sampleStep(first, SamplingDenied, permissions.ByPolicy, v.Reason)
		return mcp.SampleResponse{}, errors.New("latch denied this sampling request: " + v.Reason)
	}
	return s.answerSample(ctx, w, first, req, review)
}

// askSample asks the person whether the model may answer: a "no", or the
// server giving up, denies the request.
func (s *Session) askSample(ctx context.Context, w *sampleWait, first *SamplingEvent, reason string) error {
	yes, err := s.sampling.wait(ctx, w, func() { s.sampleStep(first, SamplingAsked, permissions.ByPolicy, reason) })
	next := s.sampleFollow(first)
	switch {
	case err != nil:
		s.sampleStep(next, SamplingDenied, permissions.ByPolicy, "the server stopped waiting before an answer")
		return err
	case !yes:
		s.sampleStep(next, SamplingDenied, permissions.ByUser, "the user said no")
		return errSampleRefused
	}
	s.sampleStep(next, SamplingAllowed, permissions.ByUser, "")
	return nil
}

// answerSample has the current model answer the request, then (with
// review) asks the person whether to send it.
func (s *Session) answerSample(ctx context.Context, w *sampleWait, first *SamplingEvent, req mcp.SampleRequest, review bool) (mcp.SampleResponse, error) {
	next := s.sampleFollow(first)
	// Fail closed, as for a tool call: the model answers no server whose
	// request the log cannot record.
	if why := s.LogProblem(); why != "" {
		why = "the session log cannot be written (" + why + "); latch answers no request it cannot record"
		s.sampleStep(next, SamplingDenied, permissions.ByPolicy, why)
		return mcp.SampleResponse{}, errors.New("latch refused: " + why)
	}
	res, err := s.generateSample(ctx, w, first.RequestID, req)
	if err != nil {
		s.sampling.mu.Lock()
		halted := w.halted
		s.sampling.mu.Unlock()
		switch {
		case halted:
			s.sampleStep(next, SamplingRefused, permissions.ByUser, "the user stopped the model")
			return mcp.SampleResponse{}, errSampleRefused
		case ctx.Err() != nil:
			s.sampleStep(next, SamplingRefused, permissions.ByPolicy, "the server stopped waiting")
			return mcp.SampleResponse{}, ctx.Err()
		}
		s.sampleStep(next, SamplingFailed, permissions.ByPolicy, err.Error())
		return mcp.SampleResponse{}, fmt.Errorf("the model could not answer: %v", err)
	}
	done := *next
	done.Model, done.Answer, done.Truncated, done.Review = res.Model, res.Text, res.Truncated, review
	if !review {
		s.sampleStep(&done, SamplingAnswered, permissions.ByPolicy, "")
		s.sampleStep(next, SamplingSent, permissions.ByPolicy, "")
		return res, nil
	}
	yes, err := s.sampling.wait(ctx, w, func() { s.sampleStep(&done, SamplingAnswered, permissions.ByPolicy, "") })
	switch {
	case err != nil:
		s.sampleStep(next, SamplingRefused, permissions.ByPolicy, "the server stopped waiting before the answer was reviewed")
		return mcp.SampleResponse{}, err
	case !yes:
		s.sampleStep(next, SamplingRefused, permissions.ByUser, "the user refused the answer")
		return mcp.SampleResponse{}, errSampleRefused
	}
	s.sampleStep(next, SamplingSent, permissions.ByUser, "")
	return res, nil
}

// generateSample streams the current model's answer to the request's own
// messages: no history, no tools, num_predict the token limit. The person
// can stop it (AnswerSampling no), and it ends with ctx.
func (s *Session) generateSample(ctx context.Context, w *sampleWait, id string, req mcp.SampleRequest) (mcp.SampleResponse, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s.sampling.mu.Lock()
	w.stop = stop
	halted := w.halted
	s.sampling.mu.Unlock()
	if halted { // stopped before it started
		return mcp.SampleResponse{}, context.Canceled
	}
	chat := s.sampleChat(req)
	if chat.Model == "" {
		return mcp.SampleResponse{}, ErrNoModel
	}
	var b strings.Builder
	reason := ""
	err := s.chatStream(ctx, chat, func(r api.ChatResponse) error {
		if r.Message.Content != "" {
			b.WriteString(r.Message.Content)
			s.publish(&SamplingDelta{Header: s.header(TypeSamplingDelta), RequestID: id, Text: r.Message.Content})
		}
		if r.Done {
			reason = r.DoneReason
		}
		return nil
	})
	s.sampling.mu.Lock()
	w.stop = nil
	s.sampling.mu.Unlock()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		return mcp.SampleResponse{}, err
	}
	if reason == "" {
		return mcp.SampleResponse{}, errors.New("the reply was cut off")
	}
	return mcp.SampleResponse{Text: b.String(), Model: chat.Model, Truncated: reason == "length"}, nil
}

// sampleChat is the request the model answers: the server's system prompt
// and messages only, the session's options with num_predict the limit.
func (s *Session) sampleChat(req mcp.SampleRequest) *api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	opts := map[string]any{}
	for k, v := range s.requestOptionsLocked() {
		opts[k] = v
	}
	opts["num_predict"] = req.MaxTokens
	if req.Temperature > 0 {
		opts["temperature"] = req.Temperature
	}
	if len(req.StopSequences) > 0 {
		opts["stop"] = req.StopSequences
	}
	chat := &api.ChatRequest{Model: s.model, Options: opts}
	if s.keepAlive != nil {
		chat.KeepAlive = &api.Duration{Duration: *s.keepAlive}
	}
	if slices.Contains(s.caps[s.model], "thinking") {
		chat.Think = &api.ThinkValue{Value: false}
	}
	if req.SystemPrompt != "" {
		chat.Messages = append(chat.Messages, api.Message{Role: "system", Content: req.SystemPrompt})
	}
	for _, m := range req.Messages {
		chat.Messages = append(chat.Messages, api.Message{Role: m.Role, Content: m.Text})
	}
	return chat
}

// samplingRequestEvent is the first event of a request: it carries the
// request itself.
func (s *Session) samplingRequestEvent(server string, req mcp.SampleRequest) *SamplingEvent {
	var b [4]byte
	_, _ = rand.Read(b[:])
	e := &SamplingEvent{RequestID: "smp_" + hex.EncodeToString(b[:]), Server: server,
		SystemPrompt: req.SystemPrompt, MaxTokens: req.MaxTokens, ModelHints: req.ModelHints}
	for _, m := range req.Messages {
		e.Roles = append(e.Roles, m.Role)
		e.Messages = append(e.Messages, m.Text)
	}
	return e
}

// sampleFollow is the base of a request's later events: who and what,
// without the request again.
func (s *Session) sampleFollow(first *SamplingEvent) *SamplingEvent {
	return &SamplingEvent{RequestID: first.RequestID, Server: first.Server, Mode: first.Mode}
}

// sampleStep publishes a step of a request (base holds what it carries).
func (s *Session) sampleStep(base *SamplingEvent, step, by, reason string) {
	e := *base
	e.Header = s.header(TypeSampling)
	e.Step, e.By, e.Reason = step, by, reason
	s.publish(&e)
}

func (sp *sampler) register(id string) *sampleWait {
	w := &sampleWait{answer: make(chan bool, 1)}
	sp.mu.Lock()
	sp.open[id] = w
	sp.mu.Unlock()
	return w
}

func (sp *sampler) unregister(id string) {
	sp.mu.Lock()
	delete(sp.open, id)
	sp.mu.Unlock()
}

// wait asks a question of w: announce publishes it once an answer can be
// taken; the answer or the end of ctx ends the wait.
func (sp *sampler) wait(ctx context.Context, w *sampleWait, announce func()) (bool, error) {
	sp.mu.Lock()
	if w.halted { // the person stopped the request already
		sp.mu.Unlock()
		return false, nil
	}
	w.asking = true
	sp.mu.Unlock()
	defer func() {
		sp.mu.Lock()
		w.asking = false
		sp.mu.Unlock()
	}()
	announce()
	select {
	case yes := <-w.answer:
		return yes, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// AnswerSampling answers the question open on a sampling request: whether
// the model may answer (yes or no), or whether its answer is sent. While
// the model answers (or is about to), no stops it and refuses the request. It reports
// whether the request was open.
func (s *Session) AnswerSampling(requestID string, yes bool) bool {
	sp := &s.sampling
	sp.mu.Lock()
	defer sp.mu.Unlock()
	w, ok := sp.open[requestID]
	switch {
	case !ok:
		return false
	case w.asking:
		w.asking = false
		w.answer <- yes
	case !yes:
		w.halted = true
		if w.stop != nil {
			w.stop()
		}
	}
	return true
}
