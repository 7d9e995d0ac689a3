package session

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"
)

// Thinking. A model that can think is asked to (think:true), asked not to
// (false), or asked for a level: "low", "medium" and "high" (Ollama
// v0.17.4 takes them only from gpt-oss models), and from v0.32 "max" too,
// from any model that can think. Unset, Ollama's default applies
// (thinking models think). Nothing is sent to a model that cannot think.

// ThinkLevels are the thinking levels /think and ollama.think take.
var ThinkLevels = []string{"low", "medium", "high", "max"}

// thinkValue is the think value of the options: the level when set, else
// the yes or no, else nil (Ollama's default).
func thinkValue(on *bool, level string) *api.ThinkValue {
	switch {
	case level != "":
		return &api.ThinkValue{Value: level}
	case on != nil:
		return &api.ThinkValue{Value: *on}
	}
	return nil
}

// thinkSet reports whether a think value is set.
func (s *Session) thinkSet() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.think != nil
}

// Think is the think setting: "" (Ollama's default), "on", "off", or a
// level.
func (s *Session) Think() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return thinkName(s.think)
}

func thinkName(t *api.ThinkValue) string {
	switch v := thinkAny(t).(type) {
	case bool:
		if v {
			return "on"
		}
		return "off"
	case string:
		return v
	}
	return ""
}

func thinkAny(t *api.ThinkValue) any {
	if t == nil {
		return nil
	}
	return t.Value
}

// SetThink sets what models that can think are asked from the next
// request: "on", "off", a level (ThinkLevels), or "default" (Ollama's
// default). Whether the server and the model take a level is Ollama's to
// say: a refusal says how to ask plainly (thinkRefusal).
func (s *Session) SetThink(v string) error {
	var t *api.ThinkValue
	switch v = strings.ToLower(strings.TrimSpace(v)); {
	case v == "on" || v == "true":
		t = &api.ThinkValue{Value: true}
	case v == "off" || v == "false":
		t = &api.ThinkValue{Value: false}
	case slices.Contains(ThinkLevels, v):
		t = &api.ThinkValue{Value: v}
	case v == "default":
	default:
		return &UserError{Msg: fmt.Sprintf("no such think setting %q: on, off, %s, or default", v, strings.Join(ThinkLevels, ", "))}
	}
	s.mu.Lock()
	s.think = t
	s.mu.Unlock()
	return nil
}

// thinkRefusal is the hint for Ollama refusing a think level: v0.17.4
// answers 400 `think value "low" is not supported for this model` to a
// model without the harmony parser, and `invalid think value: "max" …`
// to "max", which only v0.32 knows.
func thinkRefusal(err error) string {
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 400 {
		return ""
	}
	if msg := se.ErrorMessage; strings.HasPrefix(msg, "think value ") || strings.HasPrefix(msg, "invalid think value") {
		return " (this Ollama or this model takes no thinking level: /think on or /think off asks plainly; " +
			"levels need a model such as gpt-oss, and \"max\" Ollama v0.32 or later)"
	}
	return ""
}
