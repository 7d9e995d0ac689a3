package session

// Compaction steps, in CompactionEvent.Step.
const (
	CompactStarted   = "started"   // the model is writing the summary
	CompactDone      = "done"      // the summary replaces the older messages for the model
	CompactFailed    = "failed"    // nothing changed; Reason says why
	CompactCancelled = "cancelled" // Esc: nothing changed
	CompactUndone    = "undone"    // /uncompact: the full history is sent again
)

// CompactionEvent is a step of a compaction (/compact, or automatic when
// the last prompt passed ollama.compact_at of the context), or its undoing
// (/uncompact). The log keeps every message; a "done" step records which
// of them the model no longer sees and what it sees instead: the first
// Messages messages of the conversation since the last /clear (turns
// FirstTurn to LastTurn) are replaced by Summary. A resume restores that
// view (see compact.go).
type CompactionEvent struct {
	Header
	Step string `json:"step"`
	// Auto: started because the context passed the threshold, before
	// turn Turn; UsedPct is how full the context was (percent).
	Auto    bool `json:"auto,omitempty"`
	Turn    int  `json:"turn,omitempty"`
	UsedPct int  `json:"used_pct,omitempty"`
	// Focus is the text given to /compact, if any.
	Focus string `json:"focus,omitempty"`
	// Messages is how many messages, from the first, the summary replaces;
	// FirstTurn and LastTurn the turns they belong to.
	Messages  int `json:"messages"`
	FirstTurn int `json:"first_turn,omitempty"`
	// Prompts is how many of the person's messages are among them: the
	// replaced part ends right before the next one. A resume finds the
	// cut by it (a message restored by a resume, but not logged, would
	// shift an index).
	Prompts  int `json:"prompts,omitempty"`
	LastTurn int `json:"last_turn,omitempty"`
	// Summary is the model's summary (done).
	Summary string `json:"summary,omitempty"`
	// Before and After are the estimated sizes of the prompt, in tokens,
	// with the older messages and with the summary in their place (done).
	Before int `json:"before,omitempty"`
	After  int `json:"after,omitempty"`
	// Reason says why a compaction failed.
	Reason string `json:"reason,omitempty"`
}

// CompactionDelta is a piece of the summary as the model writes it
// (never logged: the done step holds the whole summary).
type CompactionDelta struct {
	Header
	Text string `json:"text"`
}
