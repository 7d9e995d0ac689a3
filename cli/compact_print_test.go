package cli

import (
	"strings"
	"testing"

	"latch/session"
)

// TestPrintCompaction: -p says on stderr how a compaction ended (not its
// start, whose line is the chat's: Esc cancels it there), and nothing
// with --json.
func TestPrintCompaction(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		var out, errb strings.Builder
		p := newPrinter("20261201-000000-abcdef", asJSON, &out, &errb)
		p.event(&session.CompactionEvent{Step: session.CompactStarted, Auto: true, UsedPct: 83, Messages: 20, FirstTurn: 1, LastTurn: 10})
		p.event(&session.CompactionEvent{Step: session.CompactFailed, Reason: "the model's summary was empty"})
		want := "latch: ✗ compaction failed, nothing changed: the model's summary was empty\n"
		if asJSON {
			want = ""
		}
		if errb.String() != want {
			t.Errorf("json %v: stderr %q, want %q", asJSON, errb.String(), want)
		}
	}
}
