package ollamatest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"
)

// tinyThink is a thinking model that takes no levels on v0.17.4 (no
// harmony parser), as the test model tiny-think.
var tinyThink = Model{Name: "tiny-think", Capabilities: []string{"completion", "thinking"}, ContextLength: 8192}

func newAs(t *testing.T, version string) *Server {
	t.Helper()
	s := NewAs(version, tiny, tinyThink, qwen)
	t.Cleanup(s.Close)
	return s
}

func bool_(b bool) *bool { return &b }

func statusOf(err error) (int, string) {
	var se api.StatusError
	if errors.As(err, &se) {
		return se.StatusCode, se.ErrorMessage
	}
	return 0, ""
}

// TestVersionsTagsAndShow: v0.32.15's /api/tags carries each model's
// capabilities and trained context; v0.17.4's neither. A missing model's
// 404 names it as each version does.
func TestVersionsTagsAndShow(t *testing.T) {
	for _, v := range Versions {
		t.Run(v, func(t *testing.T) {
			s := newAs(t, v)
			res, err := http.Get(s.URL + "/api/tags")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			_ = res.Body.Close()
			var tags struct {
				Models []struct {
					Name         string
					Capabilities []string
					Details      struct {
						ContextLength int `json:"context_length"`
					}
				}
			}
			if err := json.Unmarshal(b, &tags); err != nil || len(tags.Models) != 3 {
				t.Fatalf("%v %s", err, b)
			}
			q := tags.Models[2]
			newer := v == V03215
			if got := strings.Join(q.Capabilities, ","); newer != (got == "completion,tools,thinking") || newer != (q.Details.ContextLength == 40960) {
				t.Errorf("%s: capabilities %q context_length %d in /api/tags", q.Name, got, q.Details.ContextLength)
			}
			if ver, err := s.Client().Version(context.Background()); err != nil || ver != v {
				t.Errorf("/api/version %q %v", ver, err)
			}
			_, err = s.Client().Show(context.Background(), &api.ShowRequest{Model: "nosuch"})
			want := map[string]string{V0174: "model 'nosuch' not found", V03215: "model 'nosuch:latest' not found"}[v]
			if code, msg := statusOf(err); code != 404 || msg != want {
				t.Errorf("show nosuch: %d %q, want 404 %q", code, msg, want)
			}
		})
	}
}

// TestVersionsThinkLevels: v0.32.15 takes think levels, "max" too, from
// any model that can think; v0.17.4 refuses them (and "max" as a value).
func TestVersionsThinkLevels(t *testing.T) {
	cases := []struct {
		model string
		think any
		want  map[string]string // by version: "" is 200, else the 400's message
	}{
		{"tiny-think", "low", map[string]string{V0174: `think value "low" is not supported for this model`}},
		{"tiny-think", "high", map[string]string{V0174: `think value "high" is not supported for this model`}},
		{"tiny-think", "max", map[string]string{
			V0174: `invalid think value: "max" (must be "high", "medium", "low", true, or false)`}},
		{"tiny-think", "bogus", map[string]string{
			V0174:  `invalid think value: "bogus" (must be "high", "medium", "low", true, or false)`,
			V03215: `invalid think value: "bogus" (must be "high", "medium", "low", "max", true, or false)`}},
		{"tiny", "high", map[string]string{V0174: `"tiny" does not support thinking`, V03215: `"tiny" does not support thinking`}},
		{"tiny-think", true, map[string]string{}},
	}
	for _, v := range Versions {
		s := newAs(t, v)
		for _, c := range cases {
			s.Script(Turn{Chunks: append(ThinkingTokens("hmm"), Tokens("ok")...)})
			rs, err := chat(t, s, &api.ChatRequest{Model: c.model, Messages: user("x"), Think: think(c.think)})
			code, msg := statusOf(err)
			if want := c.want[v]; want != "" {
				if code != 400 || msg != want {
					t.Errorf("%s %s think %v: %d %q %v, want 400 %q", v, c.model, c.think, code, msg, err, want)
				}
				continue
			}
			if _, th := join(rs); err != nil || th != "hmm" {
				t.Errorf("%s %s think %v: %v, thinking %q", v, c.model, c.think, err, th)
			}
		}
		s.Close()
	}
}

// TestVersionsLongPrompt: a prompt longer than num_ctx. By default both
// cut it without a word, v0.17.4 to the context (256), v0.32.15 to about
// half (131); with shift:false v0.32.15 refuses it; with truncate:false
// both refuse it, each in its own words.
func TestVersionsLongPrompt(t *testing.T) {
	long := strings.Repeat("word ", 700)
	type want struct {
		prompt int
		msg    string
	}
	cases := []struct {
		name            string
		truncate, shift *bool
		want            map[string]want
	}{
		{"defaults", nil, nil, map[string]want{V0174: {prompt: 256}, V03215: {prompt: 131}}},
		{"shift false", nil, bool_(false), map[string]want{V0174: {prompt: 256}, V03215: {msg: ErrPromptTooLong}}},
		{"truncate false", bool_(false), nil, map[string]want{V0174: {msg: ErrInputTooLong}, V03215: {msg: "exceed_context_size_error"}}},
	}
	for _, v := range Versions {
		s := newAs(t, v)
		for _, c := range cases {
			w := c.want[v]
			rs, err := chat(t, s, &api.ChatRequest{Model: "tiny", Messages: user(long), Truncate: c.truncate, Shift: c.shift,
				Options: map[string]any{"num_ctx": 256}})
			code, msg := statusOf(err)
			switch {
			case w.msg != "" && (code != 400 || !strings.Contains(msg, w.msg)):
				t.Errorf("%s %s: %d %q %v, want 400 with %q", v, c.name, code, msg, err, w.msg)
			case w.msg == "" && (err != nil || rs[len(rs)-1].PromptEvalCount != w.prompt):
				t.Errorf("%s %s: %v %+v, want prompt_eval_count %d", v, c.name, err, rs, w.prompt)
			}
		}
		// A chat whose last message fits is answered on both, even with
		// shift:false: whole old messages go first.
		msgs := append(user(long), api.Message{Role: "assistant", Content: "ok"}, api.Message{Role: "user", Content: "zebra short"})
		if _, err := chat(t, s, &api.ChatRequest{Model: "tiny", Messages: msgs, Shift: bool_(false),
			Options: map[string]any{"num_ctx": 256}}); err != nil {
			t.Errorf("%s: a chat whose last message fits: %v", v, err)
		}
		s.Close()
	}
}
