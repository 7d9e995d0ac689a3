package config

import (
	"encoding/json"
	"time"
)

// ServeLimits are the "serve" section's bounds on what clients may make
// latch serve hold (0: gateway.DefaultLimits').
type ServeLimits struct {
	MaxConcurrentPerClient int // "max_concurrent_per_client": tool calls running at once
	MaxPollsPerClient      int // "max_polls_per_client": latch_await_decision polls waiting at once
	RatePerClient          int // "rate_per_client": calls a second, sustained
	BurstPerClient         int // "burst_per_client": calls at once after a pause
	// "park_max_calls_per_client", "park_max_bytes_per_client": one
	// client's calls waiting for a person, and the bytes they put in the
	// session log; "park_max_calls", "park_max_bytes": all clients'.
	ParkMaxCallsPerClient, ParkMaxBytesPerClient int
	ParkMaxCalls, ParkMaxBytes                   int
	// "task_results_max", "task_results_max_bytes": the results of
	// task-augmented calls kept for their clients.
	TaskResultsMax, TaskResultsMaxBytes int
	HTTPSessionsMax                     int           // "http_sessions_max": streamable-HTTP sessions live at once
	HTTPSessionIdle                     time.Duration // "http_session_idle": how long an idle session lives
}

// serveLimitKeys are the keys of ServeLimits.
var serveLimitKeys = []string{"max_concurrent_per_client", "max_polls_per_client", "rate_per_client", "burst_per_client",
	"park_max_calls_per_client", "park_max_bytes_per_client", "park_max_calls", "park_max_bytes",
	"task_results_max", "task_results_max_bytes", "http_sessions_max", "http_session_idle"}

// serveLimits reads the limits of the "serve" section obj: each a whole
// number above 0, or for http_session_idle a duration; unset, 0.
func (l *loader) serveLimits(obj map[string]json.RawMessage) ServeLimits {
	var c ServeLimits
	for _, k := range []struct {
		key string
		n   *int
	}{{"max_concurrent_per_client", &c.MaxConcurrentPerClient}, {"max_polls_per_client", &c.MaxPollsPerClient},
		{"rate_per_client", &c.RatePerClient}, {"burst_per_client", &c.BurstPerClient},
		{"park_max_calls_per_client", &c.ParkMaxCallsPerClient}, {"park_max_bytes_per_client", &c.ParkMaxBytesPerClient},
		{"park_max_calls", &c.ParkMaxCalls}, {"park_max_bytes", &c.ParkMaxBytes},
		{"task_results_max", &c.TaskResultsMax}, {"task_results_max_bytes", &c.TaskResultsMaxBytes},
		{"http_sessions_max", &c.HTTPSessionsMax}} {
		if raw, set := obj[k.key]; set {
			*k.n = l.positiveInt("", "serve."+k.key, raw)
		}
	}
	c.HTTPSessionIdle = l.duration("", "serve.http_session_idle", obj["http_session_idle"], 0)
	return c
}
