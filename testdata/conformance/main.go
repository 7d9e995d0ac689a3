// Command conformance is the client program that the official MCP
// conformance suite (npm @modelcontextprotocol/conformance, pinned in
// testdata/npm) runs against latch's MCP client layer:
//
//	conformance client --command <this program> --scenario NAME
//
// The suite starts a mock server and runs this program with the server's URL
// as its last argument and the scenario's name in $MCP_CONFORMANCE_SCENARIO.
// The program connects latch's real mcp.Manager to that URL over streamable
// HTTP, waits until the server is connected, lists its tools, calls the tool
// the scenario expects, closes everything and exits 0; on any failure it
// writes the reason to stderr and exits 1. It always ends within 25 s (the
// suite allows 30 s). mcp/conformance_test.go builds and runs it.
//
// Scenarios: initialize (handshake and tool list only), tools_call
// (add_numbers), sse-retry (test_reconnection, whose result only arrives
// after the client reconnects its SSE stream) and
// elicitation-sep1034-client-defaults (test_client_elicitation_defaults,
// whose form latch accepts as its defaults fill it: mcp.ParseForm and
// mcp.FormDefaults, what the session pre-fills a form with). A scenario
// whose $MCP_CONFORMANCE_CONTEXT lists toolCalls gets those calls
// (http-custom-headers); the pre-release suite's other scenarios are in
// next.go, the auth/* scenarios in auth.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"latch/mcp"
)

// call is the tool a scenario expects to be called, and the text its result
// must contain.
type call struct {
	tool string
	args map[string]any
	want string
}

// scenarios maps each handled scenario to its tool calls.
var scenarios = map[string][]call{
	"initialize": nil,
	"tools_call": {{tool: "add_numbers", args: map[string]any{"a": 2, "b": 3}, want: "The sum of 2 and 3 is 5"}},
	"sse-retry":  {{tool: "test_reconnection", args: map[string]any{}, want: "Reconnection test completed successfully"}},
	"elicitation-sep1034-client-defaults": {{tool: "test_client_elicitation_defaults", args: map[string]any{},
		want: "Elicitation completed"}},
}

// acceptDefaults answers a form with its defaults, as a person who
// changes nothing in latch's form would.
func acceptDefaults(_ context.Context, _ string, req mcp.ElicitRequest) (mcp.ElicitResponse, error) {
	fields, err := mcp.ParseForm(req.Schema)
	if err != nil {
		return mcp.ElicitResponse{Action: mcp.ElicitDecline}, nil
	}
	return mcp.ElicitResponse{Action: mcp.ElicitAccept, Content: mcp.FormDefaults(fields)}, nil
}

// serverName is the name the mock server gets in latch's config.
const serverName = "conformance"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) < 2 {
		return errors.New("usage: conformance [flags...] SERVER_URL (with $MCP_CONFORMANCE_SCENARIO set)")
	}
	url := os.Args[len(os.Args)-1]
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if strings.HasPrefix(scenario, "auth/") {
		return runAuth(url, scenario) // auth.go
	}
	plan, ok := planFor(scenario)
	if !ok {
		return fmt.Errorf("scenario %q is not handled", scenario)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	m := mcp.New([]mcp.ServerConfig{{
		Name:           serverName,
		Transport:      mcp.TransportHTTP,
		URL:            url,
		Timeout:        15 * time.Second,
		ConnectTimeout: 10 * time.Second,
	}}, mcp.Options{Elicit: acceptDefaults})
	defer m.CloseAll()
	m.Start()

	tools, err := waitConnected(ctx, m)
	if err != nil {
		return err
	}
	return plan(ctx, m, tools)
}

// plan is what a scenario does once the server is connected, given its
// tools.
type plan func(ctx context.Context, m *mcp.Manager, tools []mcp.Tool) error

// planFor is the plan of a scenario: the calls the suite's context lists
// (toolCalls), or those scenarios names, or one of nextPlans (next.go).
func planFor(scenario string) (plan, bool) {
	if listed, ok := contextCalls(); ok {
		return callEach(scenario, listed), true
	}
	if calls, ok := scenarios[scenario]; ok {
		return callEach(scenario, calls), true
	}
	p, ok := nextPlans[scenario]
	return p, ok
}

// callEach is the plan that makes the calls, in order, each of whose
// results must be a success containing its want.
func callEach(scenario string, calls []call) plan {
	return func(ctx context.Context, m *mcp.Manager, tools []mcp.Tool) error {
		for _, c := range calls {
			t, ok := findTool(tools, c.tool)
			if !ok {
				return fmt.Errorf("%s: the server lists no tool %q (tools: %v)", scenario, c.tool, originals(tools))
			}
			res, err := m.Call(ctx, t.Name, c.args, "")
			if err != nil {
				return fmt.Errorf("%s: call %s: %v", scenario, c.tool, err)
			}
			if res.IsError || !strings.Contains(res.Text, c.want) {
				return fmt.Errorf("%s: call %s: got %q (isError %v), want a text containing %q", scenario, c.tool, res.Text, res.IsError, c.want)
			}
		}
		return nil
	}
}

// waitConnected polls the server's status until it is connected and its
// tools are named (a moment after the state turns connected), and returns
// the tools.
func waitConnected(ctx context.Context, m *mcp.Manager) ([]mcp.Tool, error) {
	for {
		st, err := m.Status(serverName)
		if err != nil {
			return nil, err
		}
		switch st.State {
		case mcp.StateConnected:
			tools, err := m.ServerTools(serverName)
			if err != nil {
				return nil, err
			}
			if len(tools) == st.Tools {
				return tools, nil
			}
		case mcp.StateFailed, mcp.StateDisconnected, mcp.StateAuthExpired:
			// (Closed is the state until Start's goroutine begins connecting.)
			return nil, fmt.Errorf("server %s", st.Summary())
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("server not connected in time: %s", st.Summary())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// findTool finds a tool by its name on the server.
func findTool(tools []mcp.Tool, original string) (mcp.Tool, bool) {
	for _, t := range tools {
		if t.Original == original {
			return t, true
		}
	}
	return mcp.Tool{}, false
}

func originals(tools []mcp.Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Original
	}
	return out
}
