package cli

import (
	"runtime/debug"
	"testing"
)

func TestChatGCPaceUnlessGOGCIsSet(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)

	tuneChatGC(func(string) string { return "" })
	if got := debug.SetGCPercent(100); got != chatGCPercent {
		t.Errorf("GOGC unset: the chat's pace is %d, want %d", got, chatGCPercent)
	}
	tuneChatGC(func(k string) string {
		if k == "GOGC" {
			return "200"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC set: the chat changed the pace to %d; the runtime's (from GOGC) must stay", got)
	}
}
