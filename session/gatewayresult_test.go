package session_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"latch/permissions"
	"latch/session"
)

// notesWithResult is the notes server with write_note answering result.
func notesWithResult(result *mcpgo.CallToolResult) *notesServer {
	n := newNotesServer()
	n.srv.AddTool(mcpgo.NewTool("write_note", mcpgo.WithString("text", mcpgo.Required())),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) { return result, nil })
	return n
}

// TestGatewayRestartGivesBackTheWholeResult: a gateway client's call
// parked, approved and run gives, after the gateway restarts, the result
// it gave before — every content part (text and image) and the structured
// content, or the structured content alone when the server sent no part —
// not only its text.
func TestGatewayRestartGivesBackTheWholeResult(t *testing.T) {
	image := mcpgo.NewImageContent("aGVsbG8=", "image/png")
	cases := map[string]*mcpgo.CallToolResult{
		"parts and structured": {Content: []mcpgo.Content{mcpgo.NewTextContent(`{"saved":2}`), image},
			StructuredContent: map[string]any{"saved": 2, "ids": []any{"a", "b"}, "big": 9007199254740993}},
		"structured alone": {Content: []mcpgo.Content{}, StructuredContent: map[string]any{"saved": 1}},
	}
	for name, result := range cases {
		t.Run(name, func(t *testing.T) {
			o := session.Options{NonInteractive: true, LogDir: t.TempDir(), ID: "gw-whole"}
			h := newToolHarnessOn(t, o, notesWithResult(result))
			h.sess.SetServerMode("notes", permissions.Approve)
			out := h.sess.GatewayCall(bounded(t), session.GatewayCall{Client: "ci", Name: "notes__write_note",
				Arguments: map[string]any{"text": "hi"}})
			if out.Decision != session.GatewayParked {
				t.Fatalf("call: %+v", out)
			}
			if err := h.sess.GatewayDecide(out.ID, true, "alice", ""); err != nil {
				t.Fatal(err)
			}
			first := awaitSettled(t, h.sess, out.ID)
			if first.Result == nil {
				t.Fatalf("before the restart: %+v", first)
			}
			h.sess.Close()

			again := newToolHarnessOn(t, o, notesWithResult(result))
			if _, err := again.sess.ResumeGateway(); err != nil {
				t.Fatal(err)
			}
			got := again.sess.GatewayAwait(bounded(t), out.ID, time.Millisecond)
			if got.Result == nil {
				t.Fatalf("after the restart: %+v", got)
			}
			for what, pair := range map[string][2]any{
				"content":    {first.Result.Content, got.Result.Content},
				"structured": {first.Result.Structured, got.Result.Structured},
				"is_error":   {first.Result.IsError, got.Result.IsError},
			} {
				a, _ := json.Marshal(pair[0])
				b, _ := json.Marshal(pair[1])
				if string(a) != string(b) {
					t.Errorf("%s after the restart:\n %s\nwant the first time's:\n %s", what, b, a)
				}
			}
		})
	}
}
