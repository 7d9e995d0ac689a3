package cli

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/ollamatest"
)

// Pools of the random configs and calls of TestPropertyPolicyCheckEqualsLiveGate.
var (
	ppTools    = []string{"read_text_file", "write_file"}
	ppPatterns = []any{"~/src/proj/**", "~/.ssh/**", "/etc/*", "*.txt", "re:.*secret.*", "re:/tmp/.*", float64(1), true, "**"}
	ppArgNames = []string{"path", "*", "n", "flag"}
	ppValues   = []any{"~/src/proj/a.go", "~/src/proj/../../.ssh/id_rsa", "/etc/passwd", "/tmp/secret.txt", "notes.txt",
		`~/src\proj\a.go`, float64(1), true, []any{"~/src/proj/a", "/etc/x"}, map[string]any{"deep": "~/.ssh/k"}}
	ppModes = []string{"read_only", "ask", "approve", "auto"}
)

// randomPolicyConfig is a config of random rules, global and of server
// fs, in a random mode.
func randomPolicyConfig(rng *rand.Rand) map[string]any {
	rule := func(tool string) map[string]any {
		args := map[string]any{}
		for range rng.IntN(3) {
			args[ppArgNames[rng.IntN(len(ppArgNames))]] = ppPatterns[rng.IntN(len(ppPatterns))]
		}
		if args["*"] != nil {
			if _, ok := args["*"].(string); !ok {
				delete(args, "*")
			}
		}
		return map[string]any{"tool": tool, "args": args, "decision": []string{"allow", "ask", "deny"}[rng.IntN(3)]}
	}
	global, own := []any{}, []any{}
	for range rng.IntN(4) {
		global = append(global, rule([]string{"*", "fs__read_text_file", "fs__write_file"}[rng.IntN(3)]))
	}
	for range rng.IntN(3) {
		own = append(own, rule([]string{"*", "read_text_file", "write_file"}[rng.IntN(3)]))
	}
	cfg := map[string]any{
		"permissions": map[string]any{"mode": ppModes[rng.IntN(len(ppModes))], "rules": global},
		"servers":     map[string]any{"fs": map[string]any{"command": "never-started", "rules": own}},
	}
	if rng.IntN(3) == 0 {
		cfg["permissions"].(map[string]any)["allow"] = []any{"fs__" + ppTools[rng.IntN(2)]}
	}
	return cfg
}

// TestPropertyPolicyCheckEqualsLiveGate: for random configs of rules and
// modes and random calls, latch policy check --non-interactive gives the
// decision the live gate of a -p session gives the same call made by the
// model to the server, and names the same rule.
func TestPropertyPolicyCheckEqualsLiveGate(t *testing.T) {
	t.Parallel()
	cases := 100
	if testing.Short() {
		cases = 20
	}
	rng := rand.New(rand.NewPCG(24, 5))
	for i := range cases {
		dir := t.TempDir()
		cfg := randomPolicyConfig(rng)
		data, _ := json.Marshal(cfg)
		path := filepath.Join(dir, "latch.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		tool := ppTools[rng.IntN(2)]
		args := map[string]any{}
		for range 1 + rng.IntN(2) {
			args[[]string{"path", "n", "flag", "other"}[rng.IntN(4)]] = ppValues[rng.IntN(len(ppValues))]
		}
		argsJSON, _ := json.Marshal(args)

		out, errs, code := runLatch(t, dir, "--config", path, "policy", "check", "fs__"+tool, string(argsJSON), "--non-interactive")
		live, rule := liveDecision(t, dir, path, tool, args)
		want := map[string]int{"allowed": exitPolicyAllow, "denied": exitPolicyDeny, "parked": exitPolicyAsk, "asked": exitPolicyAsk}[live]
		if code != want {
			t.Fatalf("case %d: config %s, call fs__%s %s: policy check exit %d (%s%s), the live gate %s", i, data, tool, argsJSON, code, out, errs, live)
		}
		if rule != "" && !strings.Contains(out, "("+rule+")") {
			t.Fatalf("case %d: config %s, call fs__%s %s: the live gate names rule %q, policy check says:\n%s", i, data, tool, argsJSON, rule, out)
		}
	}
}

// liveDecision runs a -p session over the config at path, with server fs
// in process, whose model calls fs's tool with args; it returns the live
// gate's decision on the call and the rule it names.
func liveDecision(t *testing.T, dir, path string, tool string, args map[string]any) (decision, rule string) {
	t.Helper()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion", "tools"}})
	defer ol.Close()
	env := envOf(map[string]string{"HOME": dir, "XDG_CONFIG_HOME": dir + "/.config", "XDG_STATE_HOME": dir + "/.state"})
	f := flags{config: path, model: "qwen3:8b", promptSet: true}
	s, err := loadSettings(f, env)
	if err != nil {
		t.Fatal(err)
	}
	srv := mcpserver.NewMCPServer("fs", "1.0")
	for _, name := range ppTools {
		srv.AddTool(mcp.NewTool(name), func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("done"), nil
		})
	}
	o := sessionOptions(s, f, true)
	o.Client, o.Host = ol.Client(), ol.Host()
	o.Servers = []session.ServerConfig{{Name: "fs", Transport: "inprocess", InProcess: srv}}
	sess := session.New(o)
	defer sess.Close()
	sub := sess.Subscribe()
	sess.StartServers()
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(20*time.Second))
	defer cancel()
	sess.WaitServers(ctx)
	a := api.NewToolCallFunctionArguments()
	for k, v := range args {
		a.Set(k, v)
	}
	ol.Script(ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{{ID: "call_1",
		Function: api.ToolCallFunction{Name: "fs__" + tool, Arguments: a}}}}}}, ollamatest.TextTurn("ok"))
	if err := sess.Send("go"); err != nil {
		t.Fatal(err)
	}
	for {
		evs, ok := sub.Next(ctx)
		if !ok {
			t.Fatalf("no permission event within 20s for fs__%s %v", tool, args)
		}
		for _, e := range evs {
			if p, ok := e.(*session.PermissionEvent); ok && p.CallID == "call_1" {
				return p.Decision, p.Rule
			}
		}
	}
}
