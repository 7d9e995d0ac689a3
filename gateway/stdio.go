package gateway

import (
	"context"
	"errors"
	"io"
	"log"

	"github.com/mark3labs/mcp-go/server"
)

// refusers are the stdio workers beyond the limits: they answer the calls
// over a limit while every slot is taken.
const refusers = 4

// ServeStdio serves the gateway's one client on stdin and stdout until
// the client closes stdin or ctx ends. mcp-go runs a stdio client's tool
// calls on a fixed pool of workers and queues the rest: the pool holds
// as many as the limits let run at once (calls and polls) and a few to
// refuse more, so that the limits decide, at once, and a poll waiting for
// a person never holds up a call. (mcp-go caps the pool at 100.)
func (g *Gateway) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	ss := server.NewStdioServer(g.srv)
	ss.SetErrorLogger(log.New(io.Discard, "", 0)) // it would print what the client sent
	server.WithWorkerPoolSize(g.lim.l.Concurrent + g.lim.l.Polls + refusers)(ss)
	err := ss.Listen(ctx, stdin, stdout)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
