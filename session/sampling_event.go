package session

// Event types of a server's requests for model time (sampling).
const (
	TypeSampling      = "sampling"
	TypeSamplingDelta = "sampling_delta"
)

// The steps of a sampling request, in SamplingEvent.Step.
const (
	// SamplingAsked: the person is asked whether the model may answer.
	SamplingAsked = "asked"
	// SamplingAllowed: the model answers (by the list or mode, or the
	// person said yes).
	SamplingAllowed = "allowed"
	// SamplingDenied: refused before the model answered (the gate, the
	// person, the rate limit, the server giving up).
	SamplingDenied = "denied"
	// SamplingAnswered: the model's answer is complete; with Review set,
	// the person reviews it before it is sent.
	SamplingAnswered = "answered"
	// SamplingSent: the answer was returned to the server.
	SamplingSent = "sent"
	// SamplingRefused: the answer was not returned (the person said no,
	// or stopped the model).
	SamplingRefused = "refused"
	// SamplingFailed: the model could not answer.
	SamplingFailed = "failed"
)

// SamplingEvent is one step of a server's sampling/createMessage. The
// first event of a request (asked, allowed or denied) carries the request:
// the system prompt, the messages (Roles[i] wrote Messages[i]), the token
// limit and the server's model hints.
type SamplingEvent struct {
	Header
	RequestID string `json:"request_id"`
	Server    string `json:"server"`
	Step      string `json:"step"`
	By        string `json:"by,omitempty"` // "policy" or "user"
	Reason    string `json:"reason,omitempty"`
	Mode      string `json:"mode,omitempty"`

	SystemPrompt string   `json:"system_prompt,omitempty"`
	Roles        []string `json:"roles,omitempty"`
	Messages     []string `json:"messages,omitempty"`
	MaxTokens    int      `json:"max_tokens,omitempty"`
	ModelHints   []string `json:"model_hints,omitempty"`

	// On answered (and sent): the model and its answer.
	Model     string `json:"model,omitempty"`
	Answer    string `json:"answer,omitempty"`
	Truncated bool   `json:"truncated,omitempty"` // stopped at the token limit
	Review    bool   `json:"review,omitempty"`    // the person decides whether it is sent
}

// SamplingDelta is a piece of the model's answer to a sampling request as
// it streams (not logged).
type SamplingDelta struct {
	Header
	RequestID string `json:"request_id"`
	Text      string `json:"text"`
}
