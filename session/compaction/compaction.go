// Package compaction holds the parts of a compaction (docs/SESSIONS.md,
// "Compaction") that need nothing of a session: where a cut falls in a
// conversation, which turns it spans, and the request that asks the
// model for a summary. The session (package session, compact.go) runs
// the compaction, keeps the model's view of the history and logs it. It
// imports only the Ollama API's types; never latch/session.
package compaction

import "github.com/ollama/ollama/api"

// KeepTurns is how many of the last turns a compaction keeps verbatim.
const KeepTurns = 2

// SummaryIntro opens the message that stands for the compacted messages.
// It is a user message, not a system one: the summary holds what tools
// and servers said, and must not speak with the authority of the system
// prompt.
const SummaryIntro = "[Summary of the earlier conversation, compacted by latch and written by you, the model; " +
	"the messages after this one are verbatim]\n\n"

// Cut is where a compaction of ms cuts: ms[:cut] are summarized.
// It is the start of the KeepTurns-th last turn, moved back before
// any turn holding a call still waiting (for an answer, a decision, or to
// run: waiting); 0 when there is nothing to summarize. A call without an
// answer that waits for nothing (its answer was lost in a crash before a
// resume took it up) does not hold the cut back.
func Cut(ms []api.Message, waiting map[string]bool) int {
	var users []int
	for i, m := range ms {
		if m.Role == "user" {
			users = append(users, i)
		}
	}
	if len(users) <= KeepTurns {
		return 0
	}
	cut := users[len(users)-KeepTurns]
	answered := map[string]bool{}
	for _, m := range ms {
		if m.Role == "tool" && m.ToolCallID != "" {
			answered[m.ToolCallID] = true
		}
	}
	for i := 0; i < cut; i++ {
		for _, tc := range ms[i].ToolCalls {
			if !waiting[tc.ID] || answered[tc.ID] {
				continue
			}
			// An unresolved call: its turn (and all after) stays verbatim.
			start := 0
			for _, u := range users {
				if u <= i {
					start = u
				}
			}
			cut = min(cut, start)
		}
	}
	return cut
}

// TurnsOf are the turns of the messages [from, to) of the history, as the
// log numbers them: counted by the user messages since the last /clear,
// offset by the session's turn count.
func TurnsOf(ms []api.Message, from, to, lastTurn int) (first, last int) {
	users := 0
	for _, m := range ms {
		if m.Role == "user" {
			users++
		}
	}
	before, in := 0, 0
	for i, m := range ms[:to] {
		if m.Role == "user" {
			if i < from {
				before++
			} else {
				in++
			}
		}
	}
	base := lastTurn - users
	return base + before + 1, base + before + in
}

// SummaryPrompt is the request for a summary of part: the summary of
// what came before it (if any), part itself, and the instruction.
func SummaryPrompt(prior string, part []api.Message, focus string) []api.Message {
	out := []api.Message{{Role: "system", Content: "You compact a conversation between a person and an assistant " +
		"so that it fits the assistant's context. Summarize it: what the person wants, the facts and decisions " +
		"established, the results of tool calls that still matter, and what is still open. Be concise and " +
		"specific (names, numbers, paths). Write in the conversation's language. Reply with the summary only."}}
	if prior != "" {
		out = append(out, api.Message{Role: "user", Content: SummaryIntro + prior})
	}
	for _, m := range part {
		m.Images, m.Thinking = nil, ""
		out = append(out, m)
	}
	ask := "Summarize the conversation above for your own later use, in place of it."
	if focus != "" {
		ask += " Keep above all what concerns: " + focus
	}
	return append(out, api.Message{Role: "user", Content: ask})
}

// UserCount is how many of ms are the person's.
func UserCount(ms []api.Message) int {
	n := 0
	for _, m := range ms {
		if m.Role == "user" {
			n++
		}
	}
	return n
}
