package cli

import "runtime/debug"

// chatGCPercent is the garbage collector's pace in the chat. A reply
// allocates many times what the chat keeps (a 3,000-token reply: about
// 65 MB, most of it glamour's rendering, for 3–4 MB live), and while a
// reply streams the Ollama api client holds an 8 MB line buffer of which
// only the first few hundred KB are ever written. At Go's default
// (GOGC=100: collect when the heap has doubled) that buffer counts as
// live, and the heap filled with about 11 MB of garbage before each
// collection, pages the process then kept. At 50 the heap grows by half
// what is live: on the workload, about 4 MB less peak RSS for no CPU the
// measurement could tell from its noise (docs/ARCHITECTURE.md, "Start-up
// and memory"). A soft memory limit saved as much, but a fixed one makes
// a long chat whose live heap grows near it collect without end; this
// pace follows the live heap, and collects at most twice as often as the
// default.
const chatGCPercent = 50

// tuneChatGC sets the chat's pace (above), unless the person set GOGC,
// which then rules as the Go runtime has it.
func tuneChatGC(getenv func(string) string) {
	if getenv("GOGC") == "" {
		debug.SetGCPercent(chatGCPercent)
	}
}
