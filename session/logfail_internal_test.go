package session

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/ollama/ollama/api"

	"latch/mcp"
	"latch/permissions"
	"latch/session/ollamatest"
)

// TestLogFullFailsClosed: with the session log on a full disk (/dev/full
// answers every write with ENOSPC), no tool call runs, even in auto mode;
// the model is told why and the chat goes on. When writing works again,
// calls run again, and the log holds whole lines only.
func TestLogFullFailsClosed(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	srv := mcpserver.NewMCPServer("box", "1.0")
	var ran atomic.Int32
	srv.AddTool(mcpgo.NewTool("wipe"), func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
		ran.Add(1)
		return mcpgo.NewToolResultText("wiped"), nil
	})
	dir := t.TempDir()
	s := New(Options{Model: "qwen3:8b", LogDir: dir, ID: "20261201-000000-full00",
		Policy:  permissions.Policy{Mode: permissions.Auto},
		Servers: []ServerConfig{{Name: "box", Transport: "inprocess", InProcess: srv}}})
	t.Cleanup(s.Close)
	s.StartServers()
	waitToolNamed(t, s, "box__wipe")
	sub := s.Subscribe()
	call := api.ToolCall{ID: "call_1", Function: api.ToolCallFunction{Name: "box__wipe", Arguments: api.NewToolCallFunctionArguments()}}

	good := s.log.SwapFile(full)
	for i := range 4 {
		msg, answered := s.runToolCall(context.Background(), 1, call)
		if !answered || !strings.Contains(msg.Content, "not run: the session log cannot be written") {
			t.Fatalf("call %d with the disk full: %q", i, msg.Content)
		}
	}
	if n := ran.Load(); n != 0 {
		t.Fatalf("%d calls ran while the log could not be written", n)
	}
	if p := s.LogProblem(); !strings.Contains(p, "no space left") {
		t.Fatalf("LogProblem() = %q", p)
	}
	notices := func() (broke, recovered int) {
		evs, _ := sub.Next(context.Background())
		for _, e := range evs {
			if n, ok := e.(*Notice); ok {
				switch {
				case strings.Contains(n.Text, "cannot write the session log"):
					broke++
				case strings.Contains(n.Text, "written again"):
					recovered++
				}
			}
		}
		return
	}
	if b, _ := notices(); b != 1 {
		t.Fatalf("%d notices that the log broke, want 1", b)
	}

	s.log.SwapFile(good)
	call.ID = "call_2"
	if msg, answered := s.runToolCall(context.Background(), 1, call); !answered || msg.Content != "wiped" {
		t.Fatalf("after the disk recovered: %q", msg.Content)
	}
	if n := ran.Load(); n != 1 || s.LogProblem() != "" {
		t.Fatalf("after recovery: %d calls ran, problem %q", n, s.LogProblem())
	}
	if _, r := notices(); r != 1 {
		t.Fatalf("%d notices that the log recovered, want 1", r)
	}
	s.Close()
	if _, warns, err := LoadLog(s.log.Path()); err != nil || len(warns) != 0 {
		t.Fatalf("the log after the outage: %v %v", err, warns)
	}
}

// TestLogFullNoSampling: with the session log on a full disk, a server's
// sampling request is refused, even allow-listed in auto mode: the model
// answers no request the log cannot record.
func TestLogFullNoSampling(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full here: %v", err)
	}
	defer full.Close()
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b", Capabilities: []string{"completion"}})
	defer ol.Close()
	ol.Script(ollamatest.TextTurn("an answer"))
	s := New(Options{Client: ol.Client(), Model: "qwen3:8b", LogDir: t.TempDir(), ID: "20261201-000000-full01",
		Policy: permissions.Policy{Mode: permissions.Auto}})
	t.Cleanup(s.Close)
	s.log.SwapFile(full)
	_, err = s.sample(context.Background(), "box", mcp.SampleRequest{Messages: []mcp.SampleMessage{{Role: "user", Text: "hi"}}, MaxTokens: 10})
	if err == nil || !strings.Contains(err.Error(), "session log cannot be written") {
		t.Fatalf("sampling with the log broken: %v", err)
	}
	if n := len(ol.Requests()); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
}
