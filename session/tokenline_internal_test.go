package session

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// tokenLines are token lines of the form tokenLine reads and lines a
// byte or a field away from it, with the strings a model may send:
// escapes, markup Go escapes (<, >, &), tabs, non-ASCII, surrogate pairs
// and lone surrogates, invalid UTF-8, control characters.
func tokenLines() []string {
	strs := []string{"", " the", "a\\nb", "\\n\\n", "\\\"", "\\\\", "\\u003cb\\u003e \\u0026", "\\t", "é ü 你好 🙂",
		"\\ud83d\\ude42", "\\ud83d", "\\u00e9", "\\/", "\xff\xfe", "a\xc3", "\\x41", "\\u12", "a\x01b", "ends with \\\\"}
	var lines []string
	for _, c := range strs {
		lines = append(lines,
			`{"model":"qwen3:8b","created_at":"2026-12-03T08:00:00.123456789Z","message":{"role":"assistant","content":"`+c+`"},"done":false}`,
			`{"model":"qwen3:8b","created_at":"2026-12-03T08:00:00Z","message":{"role":"assistant","content":"","thinking":"`+c+`"},"done":false}`,
			`{"model":"`+c+`","created_at":"2026-12-03T09:00:00+01:00","message":{"role":"assistant","content":"x`+c+`"},"done":false}`)
	}
	base := `{"model":"qwen3:8b","created_at":"2026-12-03T08:00:00Z","message":{"role":"assistant","content":"hi"},"done":false}`
	for _, swap := range [][2]string{
		{`"done":false`, `"done":true`},
		{`"done":false`, `"done":false,"done_reason":"stop"`},
		{`"assistant"`, `"Assistant"`},
		{`"assistant"`, `"user"`},
		{`"2026-12-03T08:00:00Z"`, `"yesterday"`},
		{`"2026-12-03T08:00:00Z"`, `"2026-13-03T08:00:00Z"`},
		{`"2026-12-03T08:00:00Z"`, `null`},
		{`"2026-12-03T08:00:00Z"`, `"2026-12-03T08:00:00\u005a"`},
		{`"hi"`, `"hi","thinking":""`},
		{`"hi"`, `"hi","images":null`},
		{`"hi"`, `5`},
		{`"hi"`, `"hi`},
		{`"hi"},`, `"hi"} ,`},
		{`{"model"`, ` {"model"`},
		{`"model"`, `"MODEL"`},
		{`"qwen3:8b"`, `"qwen3:8b","model":"other"`},
		{`false}`, `false}x`},
		{`false}`, `false} `},
		{`false}`, `false`},
		{`"content":"hi"`, `"content":"hi","content":"ho"`},
	} {
		lines = append(lines, strings.Replace(base, swap[0], swap[1], 1))
	}
	return append(lines, base, "", `{"model":`, `{"model":"a`)
}

// tokenLine reads each line it takes as json.Unmarshal reads it into the
// reply, and takes the lines Ollama writes for a token: chatLine hands
// on the same reply, or the same error, with and without it.
func TestTokenLineReadsAsJSON(t *testing.T) {
	taken := 0
	for _, line := range append(tokenLines(), chatLines...) {
		got, ok := tokenLine([]byte(line))
		var want struct {
			api.ChatResponse
			Error     string `json:"error,omitempty"`
			SigninURL string `json:"signin_url,omitempty"`
		}
		err := json.Unmarshal([]byte(line), &want)
		if !ok {
			continue
		}
		taken++
		if err != nil || want.Error != "" || want.SigninURL != "" {
			t.Errorf("tokenLine took %q, which json.Unmarshal reads as error %v, %q", line, err, want.Error)
			continue
		}
		if !reflect.DeepEqual(got, want.ChatResponse) {
			t.Errorf("tokenLine read %q as\n%#v\njson.Unmarshal as\n%#v", line, got, want.ChatResponse)
		}
	}
	if taken < 40 {
		t.Errorf("tokenLine took %d of the lines, want the token lines of the usual form (at least 40)", taken)
	}
	for _, status := range []int{http.StatusOK, http.StatusUnauthorized, http.StatusInternalServerError} {
		response := &http.Response{StatusCode: status, Status: fmt.Sprintf("%d %s", status, http.StatusText(status))}
		for _, line := range tokenLines() {
			var once, twice []api.ChatResponse
			errOnce := chatLine(response, []byte(line), func(r api.ChatResponse) error { once = append(once, r); return nil })
			errTwice := chatLineAsTheAPIClient(response, []byte(line), func(r api.ChatResponse) error { twice = append(twice, r); return nil })
			if fmt.Sprintf("%T %v", errOnce, errOnce) != fmt.Sprintf("%T %v", errTwice, errTwice) || !reflect.DeepEqual(once, twice) {
				t.Errorf("status %d, line %q: %v %+v, the api client's %v %+v", status, line, errOnce, once, errTwice, twice)
			}
		}
	}
}

// FuzzTokenLine: whatever line tokenLine takes, json.Unmarshal reads the
// same (go test runs the seeds; -fuzz FuzzTokenLine looks further).
func FuzzTokenLine(f *testing.F) {
	for _, line := range append(tokenLines(), chatLines...) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		got, ok := tokenLine([]byte(line))
		if !ok {
			return
		}
		var want api.ChatResponse
		if err := json.Unmarshal([]byte(line), &want); err != nil {
			t.Fatalf("tokenLine took %q, which json.Unmarshal does not read: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("tokenLine read %q as %#v, json.Unmarshal as %#v", line, got, want)
		}
	})
}
