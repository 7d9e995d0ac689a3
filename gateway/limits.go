package gateway

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"
)

// Limits bound what one client may ask of the gateway, so that a client
// flooding it with calls gets errors at once while the others keep
// working. A call over a limit is refused, never queued.
type Limits struct {
	// Concurrent is how many tool calls of one client run at once
	// (serve.max_concurrent_per_client).
	Concurrent int
	// Polls is how many latch_await_decision polls of one client wait at
	// once (serve.max_polls_per_client). A poll holds its slot up to
	// serve.await_poll, so polls have their own cap and do not take the
	// tool calls' slots.
	Polls int
	// Rate is how many calls (tool calls and polls) one client may start
	// per second, sustained (serve.rate_per_client); Burst how many it
	// may start at once after a pause (serve.burst_per_client).
	Rate  int
	Burst int
	// ParkCalls is how many calls of one client may wait for a person
	// at once (serve.park_max_calls_per_client), ParkBytes how many
	// bytes they may put in the session log, as the session counts them
	// (serve.park_max_bytes_per_client); ParkCallsTotal and
	// ParkBytesTotal bound the same for all clients together
	// (serve.park_max_calls, serve.park_max_bytes). A call past one is
	// refused before anything of it is logged.
	ParkCalls, ParkCallsTotal int
	ParkBytes, ParkBytesTotal int64
	// TaskResults is how many results of task-augmented calls that did
	// not park (ran or were refused at once) the gateway keeps for their
	// clients' tasks/result (serve.task_results_max), TaskResultBytes how
	// many bytes of them (serve.task_results_max_bytes): past either,
	// the oldest are dropped.
	TaskResults     int
	TaskResultBytes int64
	// Sessions is how many streamable-HTTP sessions may be live at once
	// (serve.http_sessions_max): a new one past it ends the idlest.
	// SessionIdle is how long a session with no request under way lives
	// (serve.http_session_idle).
	Sessions    int
	SessionIdle time.Duration
}

// DefaultLimits are the limits unless the config says otherwise: enough
// for an agent, or a script, calling one tool after another as fast as
// the tools answer (a call through latch takes a millisecond or more, so
// calls in a row stay under the rate), not for one client taking the
// upstream servers for itself (8 at once, and a tight loop over them held
// to 2,000 a second).
var DefaultLimits = Limits{Concurrent: 8, Polls: 32, Rate: 2000, Burst: 4000,
	ParkCalls: 64, ParkBytes: 32 << 20, ParkCallsTotal: 1024, ParkBytesTotal: 256 << 20,
	TaskResults: 256, TaskResultBytes: 32 << 20, Sessions: 1024, SessionIdle: time.Hour}

// withDefaults is l with each unset limit at its default.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	if l.Concurrent > 0 {
		d.Concurrent = l.Concurrent
	}
	if l.Polls > 0 {
		d.Polls = l.Polls
	}
	if l.Rate > 0 {
		d.Rate = l.Rate
	}
	if l.Burst > 0 {
		d.Burst = l.Burst
	}
	d.ParkCalls = cmpOr(l.ParkCalls, d.ParkCalls)
	d.ParkCallsTotal = cmpOr(l.ParkCallsTotal, d.ParkCallsTotal)
	d.ParkBytes = cmpOr(l.ParkBytes, d.ParkBytes)
	d.ParkBytesTotal = cmpOr(l.ParkBytesTotal, d.ParkBytesTotal)
	d.TaskResults = cmpOr(l.TaskResults, d.TaskResults)
	d.TaskResultBytes = cmpOr(l.TaskResultBytes, d.TaskResultBytes)
	d.Sessions = cmpOr(l.Sessions, d.Sessions)
	d.SessionIdle = cmpOr(l.SessionIdle, d.SessionIdle)
	return d
}

// cmpOr is n when set (above 0), else its default d.
func cmpOr[T int | int64 | time.Duration](n, d T) T {
	if n > 0 {
		return n
	}
	return d
}

// limiter keeps each client's running calls and its rate budget (a token
// bucket). A client with nothing running and a full bucket is forgotten,
// so that clients come and go without the map growing.
type limiter struct {
	l   Limits
	now func() time.Time

	mu      sync.Mutex
	clients map[string]*use
}

// use is one client's share: its calls and polls running, and the tokens
// of its bucket as of at.
type use struct {
	running, polling int
	tokens           float64
	at               time.Time
}

func newLimiter(l Limits, now func() time.Time) *limiter {
	if now == nil {
		now = time.Now
	}
	return &limiter{l: l.withDefaults(), now: now, clients: map[string]*use{}}
}

// acquire takes a slot for a call of client (key names it; name is what
// the refusal calls it): a poll's slot when poll. It returns the release
// to call once the call is over, or why the call is refused.
func (lm *limiter) acquire(key, name string, poll bool) (release func(), refusal string) {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	now := lm.now()
	u := lm.clients[key]
	if u == nil {
		lm.sweep(now)
		u = &use{tokens: float64(lm.l.Burst), at: now}
		lm.clients[key] = u
	}
	u.tokens = math.Min(float64(lm.l.Burst), u.tokens+now.Sub(u.at).Seconds()*float64(lm.l.Rate))
	u.at = now
	switch {
	case poll && u.polling >= lm.l.Polls:
		return nil, fmt.Sprintf("too many %s polls at once from %s: at most %d wait together "+
			"(serve.max_polls_per_client); wait for one to return before polling again", AwaitTool, name, lm.l.Polls)
	case !poll && u.running >= lm.l.Concurrent:
		return nil, fmt.Sprintf("too many calls at once from %s: at most %d run together "+
			"(serve.max_concurrent_per_client); wait for one to finish, then call again", name, lm.l.Concurrent)
	case u.tokens < 1:
		wait := time.Duration(math.Ceil((1-u.tokens)/float64(lm.l.Rate)*1000)) * time.Millisecond
		return nil, fmt.Sprintf("too many calls from %s: at most %d a second, %d in a burst "+
			"(serve.rate_per_client, serve.burst_per_client); call again in %s",
			name, lm.l.Rate, lm.l.Burst, wait)
	}
	u.tokens--
	if poll {
		u.polling++
	} else {
		u.running++
	}
	var once sync.Once
	return func() { once.Do(func() { lm.release(key, poll) }) }, ""
}

// release gives back a slot acquire took, and forgets a client that is
// idle with its bucket full again.
func (lm *limiter) release(key string, poll bool) {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	u := lm.clients[key]
	if u == nil {
		return
	}
	if poll {
		u.polling--
	} else {
		u.running--
	}
	if lm.idle(u, lm.now()) {
		delete(lm.clients, key)
	}
}

// idle says whether u has nothing running and its bucket has refilled:
// it is then as a new client would be, and need not be kept.
func (lm *limiter) idle(u *use, now time.Time) bool {
	full := u.tokens+now.Sub(u.at).Seconds()*float64(lm.l.Rate) >= float64(lm.l.Burst)
	return u.running == 0 && u.polling == 0 && full
}

// sweepAt is how many clients the limiter keeps before it drops the idle
// ones (those whose bucket refilled after their last call ended).
const sweepAt = 1024

// sweep drops the idle clients, once many are kept.
func (lm *limiter) sweep(now time.Time) {
	if len(lm.clients) < sweepAt {
		return
	}
	for k, u := range lm.clients {
		if lm.idle(u, now) {
			delete(lm.clients, k)
		}
	}
}

// clientKey is who a call counts against: its MCP session (over stdio the
// one client; over HTTP the session its Mcp-Session-Id names). A request
// of the 2026-07-28 stateless form has no session: the client its own
// token names stands for it, or else its clientInfo name, so stateless
// clients of one name share one budget.
func clientKey(ctx context.Context) string {
	if s := server.ClientSessionFromContext(ctx); s != nil && s.SessionID() != "" {
		return "session " + s.SessionID()
	}
	if name, _ := ctx.Value(callerKey{}).(string); name != "" {
		return "verified " + name
	}
	return "client " + clientName(ctx)
}

// quotaKey is who a call's waiting counts against (the park quota): the
// client its own token names, whatever session or clientInfo name it
// uses, so that no client spends another's quota, nor gets more by
// opening sessions; else as clientKey.
func (g *Gateway) quotaKey(ctx context.Context) string {
	if name, _ := ctx.Value(callerKey{}).(string); name != "" {
		return "verified " + name
	}
	return clientKey(ctx)
}
