// Package eventtest helps tests push planted text through every field of
// every session event. The fields are found by reflection, so a field added
// to an event is planted (and so checked) without anyone listing it; the
// event types come from session.EventTypes, which a test in package
// session keeps complete against the source.
//
// Only tests import it.
package eventtest

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"latch/session"
)

// Fields lists the places in an event of type typ that hold text, as
// paths ("Header.SessionID", "StderrTail", "Arguments"): string fields,
// slices and maps of them, at any depth.
func Fields(typ string) []string { return FieldsOf(session.NewEvent(typ)) }

// FieldsOf is Fields for the type of e.
func FieldsOf(e session.Event) []string {
	var out []string
	walkFields(reflect.TypeOf(e).Elem(), "", &out)
	sort.Strings(out)
	return out
}

var toolCallType = reflect.TypeOf(api.ToolCall{})

func walkFields(t reflect.Type, prefix string, out *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		path := prefix + f.Name
		switch ft := f.Type; {
		case ft.Kind() == reflect.String,
			ft.Kind() == reflect.Slice && ft.Elem() == toolCallType,
			ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String,
			ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct,
			ft.Kind() == reflect.Map:
			*out = append(*out, path)
		case ft.Kind() == reflect.Struct && ft.PkgPath() == reflect.TypeOf(session.Header{}).PkgPath():
			walkFields(ft, path+".", out)
		}
	}
}

// Plant returns a copy of e with the field at path (see Fields) holding
// plant: the string itself, a one-element list, a map with plant as key
// and value, a tool call with plant as its id and name.
func Plant(e session.Event, path, plant string) session.Event {
	v := reflect.New(reflect.TypeOf(e).Elem())
	v.Elem().Set(reflect.ValueOf(e).Elem())
	f := v.Elem()
	for _, name := range splitPath(path) {
		f = f.FieldByName(name)
		if !f.IsValid() {
			panic(fmt.Sprintf("eventtest: %T has no field %s", e, path))
		}
	}
	switch {
	case f.Kind() == reflect.String:
		f.SetString(plant)
	case f.Kind() == reflect.Slice && f.Type().Elem() == toolCallType:
		tc := api.ToolCall{ID: plant}
		tc.Function.Name = plant
		f.Set(reflect.ValueOf([]api.ToolCall{tc}))
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
		el := reflect.New(f.Type().Elem()).Elem()
		plantStruct(el, plant)
		f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), el))
	case f.Kind() == reflect.Slice:
		f.Set(reflect.ValueOf([]string{plant, "line two " + plant}))
	case f.Kind() == reflect.Map && f.Type().Elem().Kind() == reflect.String:
		m := reflect.MakeMap(f.Type())
		m.SetMapIndex(reflect.ValueOf(plant).Convert(f.Type().Key()), reflect.ValueOf(plant).Convert(f.Type().Elem()))
		f.Set(m)
	case f.Kind() == reflect.Map:
		f.Set(reflect.ValueOf(map[string]any{plant: plant, "nested": []any{map[string]any{"k": plant}}}))
	default:
		panic(fmt.Sprintf("eventtest: %T.%s is not a text field", e, path))
	}
	return v.Interface().(session.Event)
}

// plantStruct puts plant in every text field of a struct in a list (a
// form's fields, their options), at any depth.
func plantStruct(v reflect.Value, plant string) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch {
		case f.Kind() == reflect.String:
			f.SetString(plant)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.ValueOf([]string{plant, "line two " + plant}).Convert(f.Type()))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
			el := reflect.New(f.Type().Elem()).Elem()
			plantStruct(el, plant)
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), el))
		}
	}
}

// PlantAll returns a copy of e with every text field holding plant.
func PlantAll(e session.Event, plant string) session.Event {
	for _, p := range FieldsOf(e) {
		if p == "Header.Type" {
			continue
		}
		e = Plant(e, p, plant)
	}
	return e
}

func splitPath(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return out
}

// Scenario is a turn that shows every event type in every state the
// screen draws: a failed server with its stderr, a changed tool list, a
// changed prompt list, a prompt's card,
// thinking and a reply, a card running with progress, denied, failed,
// done, parked (with its approval) and asked (with the y/n modal open),
// a notice, an error and a model change.
func Scenario() []session.Event {
	h := session.Header{}
	call := func(id string) session.Event {
		return &session.ToolCallEvent{Header: h, Turn: 1, CallID: id, Server: "srv", Tool: "srv__tool_" + id,
			Arguments: map[string]any{"path": "/tmp/" + id}}
	}
	perm := func(id, decision string) session.Event {
		return &session.PermissionEvent{Header: h, Turn: 1, CallID: id, Tool: "srv__tool_" + id, Decision: decision,
			By: "policy", Reason: "reason " + id, Mode: "ask"}
	}
	return []session.Event{
		&session.SessionStarted{Header: h, Model: "qwen3:8b", Host: "127.0.0.1:11434"},
		&session.ServerStatusEvent{Header: h, Server: "srv", State: "failed", Summary: "failed: it broke",
			Reason: "it broke", Transport: "stdio", ExitStatus: "exit status 1", StderrTail: []string{"last words"}},
		&session.ToolsChangedEvent{Header: h, Server: "srv", Tools: 2, Changed: []string{"srv__a"}, Removed: []string{"srv__b"}},
		&session.PromptsChangedEvent{Header: h, Server: "srv", Prompts: 2, Added: []string{"p_new"}, Changed: []string{"p_changed"}, Removed: []string{"p_gone"}},
		&session.UserMessage{Header: h, Turn: 1, Text: "do it"},
		&session.PromptEvent{Header: h, Turn: 1, Server: "srv", Prompt: "brief", Title: "Brief", Description: "a prompt",
			Arguments: map[string]string{"city": "Paris"}, Messages: []session.PromptShown{{Role: "user", Text: "brief me on Paris"}}},
		&session.ThinkingDelta{Header: h, Turn: 1, Text: "thinking "},
		&session.AssistantDelta{Header: h, Turn: 1, Text: "reply "},
		&session.AssistantMessage{Header: h, Turn: 1, Content: "reply done", Thinking: "thinking done"},
		call("run"), perm("run", "allowed"),
		&session.ToolProgress{Header: h, Server: "srv", CallID: "run", Progress: 1, Total: 2, Message: "halfway"},
		call("deny"), perm("deny", "denied"),
		call("fail"), perm("fail", "allowed"),
		&session.ToolResultEvent{Header: h, Turn: 1, CallID: "fail", Tool: "srv__tool_fail", Error: "it failed", DurationMS: 5},
		call("done"), perm("done", "allowed"),
		&session.ToolResultEvent{Header: h, Turn: 1, CallID: "done", Tool: "srv__tool_done", OK: true, Preview: "the result", Size: 10},
		call("iserr"), perm("iserr", "allowed"),
		&session.ToolResultEvent{Header: h, Turn: 1, CallID: "iserr", Tool: "srv__tool_iserr", IsError: true, Preview: "tool said no", Size: 12},
		call("park"), perm("park", "parked"),
		&session.ApprovalParkedEvent{Header: h, Turn: 1, ApprovalID: "a1", CallID: "park", Server: "srv", Tool: "srv__tool_park",
			Arguments: map[string]any{"path": "/tmp/park"}},
		&session.ApprovalResolvedEvent{Header: h, ApprovalID: "a0", CallID: "gone", Decision: "approved", By: "user"},
		&session.Notice{Header: h, Text: "a notice"},
		&session.CallRetriedEvent{Header: h, Turn: 1, CallID: "run", Server: "srv", Tool: "srv__tool_run", Reason: "idempotent"},
		&session.Error{Header: h, Turn: 1, Message: "an error"},
		&session.ModelChanged{Header: h, Model: "qwen3:8b"},
		&session.MessageEvent{Header: h, Turn: 1, Role: "tool", Content: "logged", ToolName: "srv__tool_done"},
		call("ask"), perm("ask", "asked"),
	}
}

// PlantIn returns the scenario with field f of every event of type typ
// holding plant.
func PlantIn(evs []session.Event, typ, f, plant string) []session.Event {
	want := reflect.TypeOf(session.NewEvent(typ))
	out := make([]session.Event, 0, len(evs)+1)
	found := false
	for _, e := range evs {
		if reflect.TypeOf(e) == want {
			e.Head().Type = typ
			e = Plant(e, f, plant)
			found = true
		}
		out = append(out, e)
	}
	if !found { // a type the scenario lacks still gets drawn once
		e := session.NewEvent(typ)
		out = append(out, Plant(e, f, plant))
	}
	return out
}

// TypeOf returns the wire name of e's type.
func TypeOf(e session.Event) string {
	for _, typ := range session.EventTypes() {
		if reflect.TypeOf(session.NewEvent(typ)) == reflect.TypeOf(e) {
			return typ
		}
	}
	return ""
}

// WriteEditedLog writes events as a session log a person (or an attacker
// with write access) edited: C1 and bidi controls raw, as JSON allows (ESC
// and BEL must stay escaped, as \u001b, for the line to be JSON at all).
func WriteEditedLog(t testing.TB, path string, evs []session.Event) {
	t.Helper()
	var lines []string
	for _, e := range evs {
		e.Head().Type = TypeOf(e)
		b, err := session.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.NewReplacer(`\u009b`, "\u009b", `\u202e`, "\u202e").Replace(string(b)))
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}
