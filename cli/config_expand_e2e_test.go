package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/session/ollamatest"
)

// TestPromptExpandedHeaderNeverLeaks: a Claude Code style file whose
// server sends "Authorization": "Bearer ${API_TOKEN}" makes latch send
// the variable's value (not the text "${API_TOKEN}"), with no warning of
// a literal credential; the value, echoed back by the server in a result
// and in an error, shows nowhere: not on stdout or stderr, not to the
// model, not in any file latch wrote, not in `latch policy list`.
func TestPromptExpandedHeaderNeverLeaks(t *testing.T) {
	t.Parallel()
	sentinel := fmt.Sprintf("SENTINEL-%d-expanded", time.Now().UnixNano())
	srv := newTokenServer(t)
	r := newPromptRig(t, map[string]any{
		"mcpServers": map[string]any{"crm": map[string]any{
			"type": "http", "url": srv.URL + "/mcp",
			"headers": map[string]string{"Authorization": "Bearer ${LATCH_E2E_API_TOKEN}"},
			"allow":   []string{"whoami", "leaky"},
		}},
	}, false, "LATCH_E2E_API_TOKEN="+sentinel)
	calls := ollamatest.Turn{Chunks: []ollamatest.Chunk{{ToolCalls: []api.ToolCall{
		{ID: "call_who", Function: api.ToolCallFunction{Name: "crm__whoami", Arguments: api.NewToolCallFunctionArguments()}},
		{ID: "call_leak", Function: api.ToolCallFunction{Name: "crm__leaky", Arguments: api.NewToolCallFunctionArguments()}},
	}}}}
	r.fake.Script(calls, ollamatest.TextTurn("Done."))
	run := r.run("", "--model", e2eModel, "-p", "who am I?")
	if !srv.sawAuth("Bearer " + sentinel) {
		t.Fatalf("the server never got the variable's value (exit %d): this test proves nothing", run.code)
	}
	if srv.sawAuth("Bearer ${LATCH_E2E_API_TOKEN}") {
		t.Error("the server got the reference, not its value")
	}
	if strings.Contains(run.stderr, "literal credential") {
		t.Errorf("warned of a literal credential for a ${VAR} header:\n%s", run.stderr)
	}
	// The whole header is a known credential, as a literal one is.
	if who := toolMessage(t, r.lastRequest(), "call_who"); who.Content != "you sent [redacted]" {
		t.Errorf("the model got %q, want the echoed token redacted", who.Content)
	}
	policy := r.run("", "policy", "list")
	seen := map[string]string{"stdout": run.stdout + policy.stdout, "stderr": run.stderr + policy.stderr}
	reqs, _ := json.Marshal(r.fake.Requests())
	seen["the requests to the model"] = string(reqs)
	err := filepath.WalkDir(r.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || path == r.cfg {
			return err
		}
		b, err := os.ReadFile(path)
		seen[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for where, text := range seen {
		if i := strings.Index(text, sentinel); i >= 0 {
			t.Errorf("the token leaked into %s: …%s…", where, text[max(0, i-120):min(len(text), i+len(sentinel)+40)])
		}
	}
}
