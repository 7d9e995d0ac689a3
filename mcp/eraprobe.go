package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// probeCap bounds a stdio probe that nothing answers, not even the ping
// behind it: a server still starting, or one that answers nothing before
// initialize. After it latch takes the server for a legacy one.
const probeCap = 5 * time.Second

// probeStdio sends a stdio server's server/discover, and right behind it
// a ping with the same _meta (a ping may come before initialize on either
// era). A clock from the spawn cannot tell a server that ignores the
// probe from one still starting (Node's start-up alone is longer than a
// quarter second): the ping can. A server that answers the ping has read
// the probe, so the probe's answer is due within discoverWait — none,
// and it ignored the probe. The answer returned is checkDiscover's, or
// "method not found", which makes mcp-go fall back to initialize.
func probeStdio(ctx context.Context, t *transport.Stdio, req transport.JSONRPCRequest, auto bool) (*transport.JSONRPCResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // forgets the requests not answered
	type answer struct {
		resp *transport.JSONRPCResponse
		err  error
	}
	discover := make(chan answer, 1)
	go func() {
		resp, err := t.SendRequest(ctx, req)
		discover <- answer{resp, err}
	}()
	pinged := make(chan struct{})
	go func() {
		_, err := t.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcpgo.JSONRPC_VERSION,
			ID: mcpgo.NewRequestId("latch-probe-ping"), Method: string(mcpgo.MethodPing), Params: probeMeta(req)})
		if !errors.Is(err, context.Canceled) {
			close(pinged) // answered, refused, or the server went away
		}
	}()
	capped := time.NewTimer(probeCap)
	defer capped.Stop()
	var grace <-chan time.Time
	for {
		select {
		case a := <-discover:
			return checkDiscover(req, a.resp, a.err, auto)
		case <-pinged:
			pinged, grace = nil, time.After(discoverWait)
		case <-grace:
			return transport.NewJSONRPCErrorResponse(req.ID, mcpgo.METHOD_NOT_FOUND, "server/discover not answered (the ping behind it was)", nil), nil
		case <-capped.C:
			return transport.NewJSONRPCErrorResponse(req.ID, mcpgo.METHOD_NOT_FOUND, "server/discover not answered within "+probeCap.String(), nil), nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// probeMeta is the params of the ping behind a probe: the probe's _meta,
// so that a server of the stateless era, which takes a message without it
// for a legacy client's, stays on that era.
func probeMeta(req transport.JSONRPCRequest) map[string]any {
	var p struct {
		Meta map[string]any `json:"_meta"`
	}
	if b, err := json.Marshal(req.Params); err == nil {
		_ = json.Unmarshal(b, &p)
	}
	if p.Meta == nil {
		return nil
	}
	return map[string]any{"_meta": p.Meta}
}
