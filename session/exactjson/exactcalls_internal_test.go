package exactjson

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/ollama/ollama/api"
)

// clientCalls is what Ollama's client reads from a line: its calls with
// their arguments through float64.
func clientCalls(t *testing.T, line string) []api.ToolCall {
	t.Helper()
	var r api.ChatResponse
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatal(err)
	}
	return r.Message.ToolCalls
}

// argsJSON is a call's arguments as JSON, in their order.
func argsJSON(c api.ToolCall) string {
	b, _ := json.Marshal(c.Function.Arguments)
	return string(b)
}

// The stream's lines are read whole however the reads cut them (here one
// byte at a time), and each reply's calls get their exact arguments, in
// order, keys in the order the model wrote them.
func TestExactCallsAcrossReads(t *testing.T) {
	lines := []string{
		`{"message":{"role":"assistant","content":"hi"}}`,
		`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"s__a","arguments":{"z":9007199254740993,"a":[1.50,{"k":-0}]}}},{"function":{"name":"s__b","arguments":{}}}]}}`,
		`{"message":{"role":"assistant","tool_calls":[{"function":{"name":"s__c","arguments":{"n":1234567890123456789}}}]},"done":true}`,
	}
	x := &ExactCalls{}
	body := &exactBody{ReadCloser: io.NopCloser(iotest.OneByteReader(strings.NewReader(strings.Join(lines, "\n")))), x: x}
	if _, err := io.ReadAll(body); err != nil {
		t.Fatal(err)
	}
	first, second := clientCalls(t, lines[1]), clientCalls(t, lines[2])
	x.Fix(first)
	x.Fix(second)
	want := []string{`{"z":9007199254740993,"a":[1.50,{"k":-0}]}`, `{}`, `{"n":1234567890123456789}`}
	got := []string{argsJSON(first[0]), argsJSON(first[1]), argsJSON(second[0])}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("call %d: %s, want %s", i, got[i], want[i])
		}
	}
}

// What does not line up is left as the client read it: another tool's
// name, other keys, a line too long to hold, no record at all.
func TestExactCallsLeaveWhatDoesNotMatch(t *testing.T) {
	line := `{"message":{"tool_calls":[{"function":{"name":"s__a","arguments":{"n":9007199254740993}}}]}}`
	x := &ExactCalls{}
	x.line([]byte(line))
	calls := clientCalls(t, strings.Replace(line, "s__a", "s__other", 1))
	x.Fix(calls)
	if got := argsJSON(calls[0]); got != `{"n":9007199254740992}` {
		t.Errorf("another tool's call got %s, want the client's reading", got)
	}

	x = &ExactCalls{}
	x.line([]byte(line))
	calls = clientCalls(t, strings.Replace(line, `"n"`, `"m"`, 1))
	x.Fix(calls)
	if got := argsJSON(calls[0]); got != `{"m":9007199254740992}` {
		t.Errorf("a call with other keys got %s, want the client's reading", got)
	}

	x = &ExactCalls{}
	long := `{"message":{"content":"` + strings.Repeat("x", maxExactLine) + `"}}` + "\n" + line
	body := &exactBody{ReadCloser: io.NopCloser(bytes.NewReader([]byte(long))), x: x}
	if _, err := io.ReadAll(body); err != nil {
		t.Fatal(err)
	}
	calls = clientCalls(t, line)
	x.Fix(calls)
	if got := argsJSON(calls[0]); got != `{"n":9007199254740992}` || cap(body.pending) > 2*maxExactLine {
		t.Errorf("after a line too long to hold: %s (held %d bytes)", got, cap(body.pending))
	}

	var none *ExactCalls
	calls = clientCalls(t, line)
	none.Fix(calls) // no transport recorded anything
	if got := argsJSON(calls[0]); got != `{"n":9007199254740992}` {
		t.Errorf("with nothing recorded: %s", got)
	}
}
