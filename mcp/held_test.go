package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// gwToken is latch serve's own bearer token in these tests.
const gwToken = "gateway-token-DDDD4444"

// TestHeldNeverInAStdioServersEnvironment: the gateway's token reaches no
// stdio server's environment, by its variable's name or in another
// variable's value, whatever env_inherit says (true, or a list naming
// the variable) and whatever the server's env sets; the other variables
// still arrive.
func TestHeldNeverInAStdioServersEnvironment(t *testing.T) {
	t.Setenv("LATCH_SERVE_TOKEN", gwToken)
	t.Setenv("LATCH_TEST_GW_COPY", "Bearer "+gwToken)
	t.Setenv("LATCH_TEST_PLAIN", "plain-value")
	dir := t.TempDir()
	withEnviron := func(name string) ServerConfig {
		return fakeServer(t, name, "-environ-file", filepath.Join(dir, name))
	}
	all := withEnviron("all")
	all.InheritAll, all.Inherit = true, []string{"LATCH_SERVE_TOKEN"}
	listed := withEnviron("listed")
	listed.Inherit = []string{"LATCH_SERVE_TOKEN", "LATCH_TEST_GW_COPY", "LATCH_TEST_PLAIN"}
	own := withEnviron("own")
	own.Env = map[string]string{"API_KEY": gwToken, "OWN": "own-value"}

	m, _ := startFake(t, Options{Held: Held{Vars: []string{"LATCH_SERVE_TOKEN"}, Values: []string{gwToken}}},
		all, listed, own)
	for _, name := range []string{"all", "listed", "own"} {
		waitReady(t, m, name, 10*time.Second)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		env := string(b)
		if strings.Contains(env, gwToken) || strings.Contains(env, "LATCH_SERVE_TOKEN=") {
			t.Errorf("server %s was given the gateway's token:\n%s", name, env)
		}
		want := map[string]string{"all": "LATCH_TEST_PLAIN=plain-value", "listed": "LATCH_TEST_PLAIN=plain-value",
			"own": "OWN=own-value"}[name]
		if !strings.Contains(env, want+"\n") || !strings.Contains(env, "PATH=") {
			t.Errorf("server %s misses %s or PATH:\n%s", name, want, env)
		}
	}
}

// TestHeldRedactedEverywhere: a server that knows the gateway's token
// (an attacker who read it elsewhere) and plants it in a result, a
// structured result, a JSON-RPC error, a tool error, progress and a log
// message shows "[redacted]" in its place everywhere.
func TestHeldRedactedEverywhere(t *testing.T) {
	m, ev := hostileManager(t, gwToken, Options{Held: Held{Values: []string{gwToken + "\n"}}})
	ctx := context.Background()
	var texts []string
	res, err := m.Call(ctx, "hostile__leak", nil, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Text, "result "+redacted) {
		t.Errorf("result not redacted in place: %q", res.Text)
	}
	texts = append(texts, res.Text, jsonOf(res.Structured))
	if _, err := m.Call(ctx, "hostile__fail_rpc", nil, "c2"); err != nil {
		texts = append(texts, err.Error())
	} else {
		t.Error("fail_rpc did not fail")
	}
	res, err = m.Call(ctx, "hostile__fail_tool", nil, "c3")
	if err != nil || !res.IsError {
		t.Fatalf("fail_tool: %v %+v", err, res)
	}
	texts = append(texts, res.Text)
	if _, err = m.Call(ctx, "hostile__progress", nil, "c4"); err != nil {
		t.Fatal(err)
	}
	var progress int
	for _, e := range eventList(ev) {
		texts = append(texts, fmt.Sprintf("%T %s", e, jsonOf(e)))
		if p, ok := e.(Progress); ok && strings.Contains(p.Message, redacted) {
			progress++
		}
	}
	if progress == 0 {
		t.Error("no progress event shows the token redacted")
	}
	lines, _ := m.Logs("hostile")
	texts = append(texts, strings.Join(lines, "\n"), jsonOf(m.Tools()), jsonOf(m.Statuses()))
	for _, s := range texts {
		if strings.Contains(s, gwToken) {
			t.Errorf("the gateway's token shows: %.300q", s)
		}
	}
}

// TestHeldFiltersByNameAndValue: which entries withoutHeld keeps back.
func TestHeldFiltersByNameAndValue(t *testing.T) {
	h := Held{Vars: []string{"LATCH_SERVE_TOKEN"}, Values: []string{" " + gwToken + "\n", "short"}}
	env := []string{"LATCH_SERVE_TOKEN=anything", "Latch_Serve_Token=x", "COPY=" + gwToken, "WRAPPED=Bearer " + gwToken + ";",
		"S=short", "PATH=/home/shorty/bin", "EMPTY=", "=C:=C:\\"}
	for _, c := range []struct {
		fold bool
		want []string
	}{
		{false, []string{"Latch_Serve_Token=x", "PATH=/home/shorty/bin", "EMPTY=", "=C:=C:\\"}},
		{true, []string{"PATH=/home/shorty/bin", "EMPTY=", "=C:=C:\\"}},
	} {
		if got := h.withoutHeld(env, c.fold); !reflect.DeepEqual(got, c.want) {
			t.Errorf("fold %v: got %q, want %q", c.fold, got, c.want)
		}
	}
	if got := (Held{}).withoutHeld(env, false); !reflect.DeepEqual(got, env) {
		t.Errorf("nothing held: got %q", got)
	}
}
