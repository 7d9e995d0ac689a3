package gateway

// The task methods reach the gateway before mcp-go: mcp-go would answer
// them from its own in-memory task store, whose ids it makes up and which
// a restart empties. Both transports pass every other message to mcp-go
// untouched; a task-augmented tools/call still goes through mcp-go's
// tools/call (the same handler, hooks and limits as any call), and the
// gateway turns its outcome into a task.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log"
	"net/http"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// taskMessage is the part of a client's JSON-RPC request the task routes
// read.
type taskMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		TaskID string          `json:"taskId"`
		Task   json.RawMessage `json:"task"`
		Meta   *mcpgo.Meta     `json:"_meta"`
	} `json:"params"`
}

// taskMessageOf reads raw as a request the gateway answers itself: a task
// method, or a task-augmented tools/call, of the 2025-11-25 protocol
// (headerVersion: the HTTP MCP-Protocol-Version header, if any). A request
// of the 2026-07-28 protocol is left to mcp-go, which does not serve its
// tasks extension: such a client gets the awaiting result.
func taskMessageOf(raw []byte, headerVersion string) (taskMessage, bool) {
	if !bytes.Contains(raw, []byte(`"tasks/`)) && !bytes.Contains(raw, []byte(`"task"`)) {
		return taskMessage{}, false // the common case, without parsing (nor allocating)
	}
	var m taskMessage
	if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 || string(m.ID) == "null" ||
		mcpgo.IsModernProtocol(headerVersion) || mcpgo.IsModernProtocol(m.Params.Meta.ProtocolVersion()) {
		return m, false
	}
	switch mcpgo.MCPMethod(m.Method) {
	case mcpgo.MethodToolsCall:
		return m, len(m.Params.Task) > 0 && string(m.Params.Task) != "null"
	case mcpgo.MethodTasksGet, mcpgo.MethodTasksResult, mcpgo.MethodTasksCancel, mcpgo.MethodTasksList:
		return m, true
	}
	return m, false
}

// ServeStdio serves the gateway on stdin and stdout (latch serve --stdio)
// until stdin ends or ctx does. Task messages and plain tool calls
// (stdiofast.go) are answered here; the rest go to mcp-go, which runs a
// stdio client's tool calls on a fixed pool of workers and queues the
// rest: the pool holds as many as the limits let run at once (calls and
// polls) and a few to refuse more, so that the limits decide, at once,
// and a poll waiting for a person never holds up a call. (mcp-go caps the
// pool at 100.) The plain calls have a pool of their own, as large as
// the calls the limits let run at once and the same few to refuse more.
func (g *Gateway) ServeStdio(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := newLineWriter(stdout)
	pr, pw := io.Pipe()
	defer func() { _ = pr.Close() }()
	ss := server.NewStdioServer(g.srv)
	ss.SetErrorLogger(log.New(io.Discard, "", 0)) // it would print what the client sent
	server.WithWorkerPoolSize(g.lim.l.Concurrent + g.lim.l.Polls + refusers)(ss)
	// mcp-go gives every request of the stdio client this context, which
	// holds its session: a task-augmented call is run with it.
	ready := make(chan struct{})
	var session context.Context
	ss.SetContextFunc(func(c context.Context) context.Context {
		session = c
		close(ready)
		return c
	})
	// sessionCtx is the session's context once Listen has set it.
	sessionCtx := func() context.Context {
		select {
		case <-ready:
			return session
		default:
			return nil
		}
	}
	plain := g.startPlainCalls(g.lim.l.Concurrent+refusers, out)
	defer plain.stop()
	go func() {
		defer func() { _ = pw.Close() }()
		br := bufio.NewReaderSize(stdin, 64<<10)
		for {
			line, err := br.ReadBytes('\n')
			if sctx, m, ok := g.plainLine(line, sessionCtx); ok {
				plain.take(sctx, m)
			} else if m, ok := taskMessageOf(line, ""); ok {
				go func() {
					select {
					case <-ready:
					case <-ctx.Done():
						return
					}
					_, _ = out.Write(append(g.answerStdio(ctx, session, m, line), '\n'))
				}()
			} else if len(line) > 0 {
				plain.cancelled(line)
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	err := ss.Listen(ctx, pr, out)
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// answerStdio answers a task message of the stdio client: a task method
// here, a task-augmented call through mcp-go in the client's session.
func (g *Gateway) answerStdio(ctx, session context.Context, m taskMessage, raw []byte) []byte {
	if mcpgo.MCPMethod(m.Method) != mcpgo.MethodToolsCall {
		res, err := g.taskRequest(ctx, m)
		return rpcResponse(m.ID, res, err)
	}
	slot := &taskSlot{}
	resp := g.srv.HandleMessage(withTaskSlot(session, slot), raw)
	if cr := g.taskCreated(slot); cr != nil {
		return rpcResponse(m.ID, cr, nil)
	}
	b, _ := json.Marshal(resp)
	return b
}

// taskHTTP answers the task messages posted over HTTP, in front of
// mcp-go's streamable HTTP handler next.
func (g *Gateway) taskHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := holdBody(r)
		if err != nil {
			http.Error(w, "Bad Request: the body could not be read", http.StatusBadRequest)
			return
		}
		m, ok := taskMessageOf(body, r.Header.Get(mcpgo.HeaderProtocolVersion))
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		var resp []byte
		if mcpgo.MCPMethod(m.Method) == mcpgo.MethodToolsCall {
			slot := &taskSlot{}
			rec := &recorder{header: http.Header{}}
			next.ServeHTTP(rec, r.WithContext(withTaskSlot(r.Context(), slot)))
			cr := g.taskCreated(slot)
			if cr == nil {
				rec.replay(w)
				return
			}
			resp = rpcResponse(m.ID, cr, nil)
			if sid := rec.header.Get(server.HeaderKeySessionID); sid != "" {
				w.Header().Set(server.HeaderKeySessionID, sid)
			}
		} else {
			res, rerr := g.taskRequest(r.Context(), m)
			resp = rpcResponse(m.ID, res, rerr)
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(resp)
	})
}

// recorder keeps mcp-go's answer to a task-augmented call, which the
// task replaces unless the call never reached the gate. It cannot flush,
// so mcp-go answers with one JSON body rather than a stream.
type recorder struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (rc *recorder) Header() http.Header         { return rc.header }
func (rc *recorder) Write(p []byte) (int, error) { return rc.body.Write(p) }
func (rc *recorder) WriteHeader(code int)        { rc.code = code }

// replay sends the kept answer as mcp-go gave it.
func (rc *recorder) replay(w http.ResponseWriter) {
	for k, v := range rc.header {
		w.Header()[k] = v
	}
	if rc.code != 0 {
		w.WriteHeader(rc.code)
	}
	_, _ = w.Write(rc.body.Bytes())
}
