package gateway_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/session"
)

// rawEchoServer's tool "raw" answers with the arguments' JSON exactly as
// latch sent it (mcp-go keeps the request's bytes in RawArguments).
func rawEchoServer() session.ServerConfig {
	srv := server.NewMCPServer("up", "1.0")
	srv.AddTool(mcp.NewTool("raw"), func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(string(req.Params.RawArguments)), nil
	})
	return session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: srv}
}

// A client's numbers reach the server as the client wrote them: past
// 2^53, 1.0 and 1E+2 are not rewritten (they were, through float64:
// 9007199254740992, 1 and 100), and -0 stays -0. A number past float64's range (1e400)
// is refused by mcp-go as the request is read, before the gate: it never
// reaches a server.
func TestGatewayNumbersReachTheServerAsSent(t *testing.T) {
	t.Parallel()
	r := newRig(t, gateway.Options{}, rawEchoServer())
	c := r.connect(t, "numbers", nil)
	ctx, cancel := context.WithTimeout(context.Background(), mcptestutil.HangBound(20*time.Second))
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = "up__raw"
	req.Params.Arguments = json.RawMessage(`{"big": 9007199254740993, "long": 1234567890123456789, "one": 1.0, "zero": -0, "e": 1E+2, "deep": [{"n": 9007199254740993}]}`)
	res, err := c.CallTool(ctx, req)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	const want = `{"big":9007199254740993,"deep":[{"n":9007199254740993}],"e":1E+2,"long":1234567890123456789,"one":1.0,"zero":-0}`
	if got := text(res); got != want {
		t.Errorf("the server was sent\n%s\nwant\n%s", got, want)
	}
	req.Params.Arguments = json.RawMessage(`{"huge": 1e400}`)
	if res, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "1e400") {
		t.Errorf("a number past float64's range: %v %+v, want mcp-go's refusal", err, res)
	}
}
