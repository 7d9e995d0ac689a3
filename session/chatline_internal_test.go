package session

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"

	"github.com/ollama/ollama/api"
)

// chatLines are lines of a chat's stream, as Ollama writes them and as
// it may go wrong: a token, a tool call, the last line with its
// figures, an error line, a line that is not JSON, fields of another
// type, an error that is not a string.
var chatLines = []string{
	`{"model":"qwen3:8b","created_at":"2026-12-03T08:00:00.123456Z","message":{"role":"assistant","content":" the"},"done":false}`,
	`{"model":"qwen3:8b","created_at":"2026-12-03T08:00:00Z","message":{"role":"assistant","content":"","thinking":"hm"},"done":false}`,
	`{"model":"qwen3:8b","created_at":"2026-12-03T08:00:00Z","message":{"role":"assistant","content":"","tool_calls":[` +
		`{"function":{"name":"fs__read","arguments":{"path":"a.go","n":1e3}}}]},"done":false}`,
	`{"model":"qwen3:8b","created_at":"2026-12-03T08:00:01Z","message":{"role":"assistant","content":""},"done":true,` +
		`"done_reason":"stop","total_duration":123,"prompt_eval_count":5,"eval_count":7,"eval_duration":99}`,
	`{"error":"an error was encountered while running the model"}`,
	`{"error":"unauthorized","signin_url":"https://ollama.com/connect?x=1"}`,
	`{"ERROR":"upper case key"}`,
	`not json at all`,
	`{"error":{"code":500}}`,
	`{"model":5,"error":"model is a number"}`,
	`{"message":{"role":"assistant","content":5},"done":false}`,
	`{"message":"not an object","done":false}`,
	`{"done":"yes"}`,
	`{}`,
	`null`,
	`[1,2]`,
}

// Each line reads through chatLine, which decodes it once, exactly as
// the api client's reading (twice: for an error, then for the reply)
// reads it, for every status: the same error, of the same type and
// text, or the same reply handed on.
func TestChatLineReadsAsTheAPIClient(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusUnauthorized, http.StatusNotFound, http.StatusInternalServerError} {
		response := &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status))}
		for _, line := range chatLines {
			var once, twice []api.ChatResponse
			errOnce := chatLine(response, []byte(line), func(r api.ChatResponse) error { once = append(once, r); return nil })
			errTwice := chatLineAsTheAPIClient(response, []byte(line), func(r api.ChatResponse) error { twice = append(twice, r); return nil })
			if fmt.Sprintf("%T %v", errOnce, errOnce) != fmt.Sprintf("%T %v", errTwice, errTwice) {
				t.Errorf("status %d, line %s: error %T %v, the api client's %T %v", status, line, errOnce, errOnce, errTwice, errTwice)
			}
			if !reflect.DeepEqual(once, twice) {
				t.Errorf("status %d, line %s: handed on %+v, the api client's %+v", status, line, once, twice)
			}
		}
	}
}

// BenchmarkChatLine is one line of a chat's stream (a token) handed on:
// "twice" as the api client reads it, "once" as chatLine does. Compare
// the two in one run.
func BenchmarkChatLine(b *testing.B) {
	line := []byte(chatLines[0])
	response := &http.Response{StatusCode: http.StatusOK, Status: "200 OK"}
	keep := func(api.ChatResponse) error { return nil }
	for _, c := range []struct {
		name string
		read func(*http.Response, []byte, api.ChatResponseFunc) error
	}{{"twice", chatLineAsTheAPIClient}, {"once", chatLine}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.read(response, line, keep); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
