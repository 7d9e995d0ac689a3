package session_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"latch/session"
)

// TestDELEscapedInLogAndJSONExport: DEL (0x7F), which a terminal reads as
// a rubout, is written as \u007f in the session log and in latch export
// --format json, as every other control character is; the text read
// back is the text published.
func TestDELEscapedInLogAndJSONExport(t *testing.T) {
	dir := t.TempDir()
	id := "20261202-000000-del000"
	s := session.New(session.Options{ID: id, LogDir: dir})
	text := "rm -rf ~\x7f\x7f\x7f\x7f\x7f\x7f\x7fls\x7f"
	s.PublishForTest(&session.UserMessage{Header: session.Header{Type: session.TypeUserMessage, Time: time.Now().UTC(),
		SessionID: id}, Turn: 1, Text: text})
	s.Close()

	log, err := os.ReadFile(s.LogPathForTest())
	if err != nil {
		t.Fatal(err)
	}
	exported := export(t, dir, id, session.ExportJSON)
	for where, out := range map[string]string{"the session log": string(log), "latch export --format json": exported} {
		if strings.ContainsRune(out, 0x7f) {
			t.Errorf("%s holds a raw DEL: %q", where, out)
		}
		if !strings.Contains(out, `~\u007f\u007f`) {
			t.Errorf("%s does not write DEL as \\u007f: %q", where, out)
		}
		line, _, _ := strings.Cut(strings.TrimSpace(out), "\n")
		var back struct{ Text string }
		if err := json.Unmarshal([]byte(line), &back); err != nil || back.Text != text {
			t.Errorf("%s reads back as %q (%v), want %q", where, back.Text, err, text)
		}
	}
}
