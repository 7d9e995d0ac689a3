package mcptestutil

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// TaskServer is an in-process mcp-go server whose tools run as tasks
// (2025-11-25 tasks, taskSupport), and what it saw of them. Its tools:
//
//	slow      requires a task; runs for its duration (or until its task
//	          is cancelled), then returns "slow done N" (N counts runs)
//	maybe     allows a task (optional); returns "maybe done" at once
//	broken    requires a task; fails with an error holding the plant
//
// A task's work ignores the context mcp-go hands it: mcp-go derives it
// from the tools/call request's, which over HTTP ends with the response
// that creates the task. tasks/cancel stops it (the server's task hook).
type TaskServer struct {
	*server.MCPServer

	mu        sync.Mutex
	runs      int      // slow's runs started
	created   []string // task ids, as created
	cancelled []string // task ids cancelled on the server
	stop      chan struct{}
}

// NewTaskServer makes a TaskServer whose slow tool runs for d, and whose
// broken tool fails with plant in its message.
func NewTaskServer(d time.Duration, plant string) *TaskServer {
	ts := &TaskServer{stop: make(chan struct{})}
	hooks := &server.TaskHooks{}
	hooks.AddOnTaskCreated(func(_ context.Context, m server.TaskMetrics) {
		ts.mu.Lock()
		ts.created = append(ts.created, m.TaskID)
		ts.mu.Unlock()
	})
	hooks.AddOnTaskCancelled(func(_ context.Context, m server.TaskMetrics) {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		ts.cancelled = append(ts.cancelled, m.TaskID)
		select {
		case <-ts.stop:
		default:
			close(ts.stop)
		}
	})
	ts.MCPServer = server.NewMCPServer("tasks", "1.0", server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(hooks))
	ts.AddTool(mcp.NewTool("slow", mcp.WithDescription("Runs a while as a task."),
		mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ts.mu.Lock()
			ts.runs++
			n := ts.runs
			stop := ts.stop
			ts.mu.Unlock()
			select {
			case <-time.After(d):
			case <-stop:
				return nil, context.Canceled
			}
			return mcp.NewToolResultText("slow done " + strconv.Itoa(n)), nil
		})
	ts.AddTool(mcp.NewTool("maybe", mcp.WithDescription("May run as a task."),
		mcp.WithTaskSupport(mcp.TaskSupportOptional)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("maybe done"), nil
		})
	ts.AddTool(mcp.NewTool("broken", mcp.WithDescription("Fails as a task."),
		mcp.WithTaskSupport(mcp.TaskSupportRequired)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("broken " + plant)
		})
	return ts
}

// Runs is how many times slow started.
func (ts *TaskServer) Runs() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.runs
}

// Created lists the ids of the tasks created, in order.
func (ts *TaskServer) Created() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.created...)
}

// Cancelled lists the ids of the tasks cancelled on the server.
func (ts *TaskServer) Cancelled() []string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]string(nil), ts.cancelled...)
}
