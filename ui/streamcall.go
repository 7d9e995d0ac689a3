package ui

import "strings"

// A model that writes a tool call as text streams it as
// <tool_call>{…}</tool_call>. While the reply streams, nothing from the
// marker on is shown (a marker split across deltas is held back until
// it is known); when the reply ends, the session's text replaces the
// stream: the prose around the calls, whose cards follow, or the whole
// text when it was no call after all.

// callMarker opens a tool call written as text.
const callMarker = "<tool_call>"

// heldCall is what a streaming reply keeps off the screen.
type heldCall struct {
	pending string // the end of the text so far that may begin callMarker
	inCall  bool   // callMarker came: nothing more is shown while streaming
}

// pass takes a content delta and returns what of it to show now.
func (h *heldCall) pass(delta string) string {
	if h.inCall {
		return ""
	}
	text := h.pending + delta
	h.pending = ""
	if i := strings.Index(text, callMarker); i >= 0 {
		h.inCall = true
		return text[:i]
	}
	for k := min(len(text), len(callMarker)-1); k > 0; k-- {
		if strings.HasSuffix(text, callMarker[:k]) {
			h.pending = text[len(text)-k:]
			return text[:len(text)-k]
		}
	}
	return text
}
