package cli

import (
	"reflect"
	"testing"
	"time"

	"latch/config"
	"latch/mcp"
	"latch/permissions"
	"latch/session"
)

// Fields of the config's ServerConfig that the connection manager does not
// take (the gate does; the session's tool offer takes Tools, see
// TestSessionOptionsCarryTheToolOffer), and of mcp.ServerConfig that no
// config sets.
var (
	// Inputs are asked for before (inputs.go): a server that still has
	// them is not handed on at all (TestServerWaitingForInputIsNotHandedOn).
	// Effect is session.Options.Idempotent (TestEffectIdempotentRetriedOnceAfterKill);
	// FileName and Project say where the server was read from (notices,
	// latch project, Sources).
	configOnly = map[string]bool{"Allow": true, "Mode": true, "Tools": true, "Inputs": true, "Rules": true, "ApproveArgs": true,
		"Effect": true, "FileName": true, "Project": true}
	mcpOnly = map[string]bool{"InProcess": true}
	renamed = map[string]string{"EnvInheritAll": "InheritAll", "EnvInherit": "Inherit"}
)

// TestServerConfigsCarryEveryField fills every field of a config server,
// converts it, and checks that each arrives under its name on the other
// side: a field added to one struct and not handed on fails here.
func TestServerConfigsCarryEveryField(t *testing.T) {
	var c config.ServerConfig
	cv := reflect.ValueOf(&c).Elem()
	for i := range cv.NumField() {
		fillField(t, cv.Type().Field(i).Name, cv.Field(i), i)
	}
	c.Inputs = nil
	got := reflect.ValueOf(serverConfigs([]config.ServerConfig{c})[0])
	seen := map[string]bool{}
	for i := range cv.NumField() {
		name := cv.Type().Field(i).Name
		if configOnly[name] {
			continue
		}
		to := name
		if r, ok := renamed[name]; ok {
			to = r
		}
		f := got.FieldByName(to)
		if !f.IsValid() {
			t.Errorf("config field %s has no field %s in mcp.ServerConfig", name, to)
			continue
		}
		seen[to] = true
		if !reflect.DeepEqual(f.Interface(), cv.Field(i).Interface()) {
			t.Errorf("%s: %v arrived as %v", name, cv.Field(i).Interface(), f.Interface())
		}
	}
	mt := reflect.TypeOf(mcp.ServerConfig{})
	for i := range mt.NumField() {
		f := mt.Field(i)
		if f.IsExported() && !seen[f.Name] && !mcpOnly[f.Name] {
			t.Errorf("mcp.ServerConfig.%s is set from no config field", f.Name)
		}
	}
}

// TestServerWaitingForInputIsNotHandedOn: a server whose strings still
// hold an ${input:…} placeholder never reaches the connection manager.
func TestServerWaitingForInputIsNotHandedOn(t *testing.T) {
	got := serverConfigs([]config.ServerConfig{
		{Name: "ready", Transport: "stdio", Command: "x"},
		{Name: "waiting", Transport: "stdio", Command: "x", Env: map[string]string{"K": "${input:k}"}, Inputs: []string{"k"}},
	})
	if len(got) != 1 || got[0].Name != "ready" {
		t.Errorf("handed on: %+v", got)
	}
}

// fillField puts a value that differs per field into v.
func fillField(t *testing.T, name string, v reflect.Value, i int) {
	t.Helper()
	switch v.Interface().(type) {
	case string:
		v.SetString(name + "-value")
	case bool:
		v.SetBool(true)
	case []string:
		v.Set(reflect.ValueOf([]string{name + "-a", name + "-b"}))
	case map[string]string:
		v.Set(reflect.ValueOf(map[string]string{name: "v"}))
	case time.Duration:
		v.Set(reflect.ValueOf(time.Duration(i+1) * time.Second))
	case []permissions.Rule:
		v.Set(reflect.ValueOf([]permissions.Rule{{Origin: name}}))
	default:
		t.Fatalf("field %s: teach fillField its type %s", name, v.Type())
	}
}

// TestSessionOptionsCarryTheToolOffer: each server's tools list (an empty
// one too: it offers none) ollama.max_tools and ollama.embed_model reach the session.
func TestSessionOptionsCarryTheToolOffer(t *testing.T) {
	cfg := &config.Config{Ollama: config.OllamaConfig{MaxTools: 7, EmbedModel: "nomic-embed-text"}, Servers: []config.ServerConfig{
		{Name: "a", Tools: []string{"read_file"}}, {Name: "b", Tools: []string{}}, {Name: "c"}}}
	s := &settings{cfg: cfg, host: session.ParseHost(""), mode: "read_only", getenv: func(string) string { return "" }}
	o := sessionOptions(s, flags{}, true)
	if o.MaxTools != 7 || o.EmbedModel != "nomic-embed-text" {
		t.Errorf("MaxTools = %d, EmbedModel = %q; want 7, nomic-embed-text", o.MaxTools, o.EmbedModel)
	}
	want := map[string][]string{"a": {"read_file"}, "b": {}}
	if !reflect.DeepEqual(o.ServerTools, want) {
		t.Errorf("ServerTools = %#v, want %#v", o.ServerTools, want)
	}
}
