package session

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"latch/session/eventlog"
)

// BenchmarkLogAppend measures appending events to a session log: the
// "unsynced" ones (a finished reply, the end of a turn) are written; the
// "synced" ones (a tool call and its permission) are written and synced
// before the session goes on, and cost what the disk's fsync costs.
func BenchmarkLogAppend(b *testing.B) {
	now := time.Now().UTC()
	head := func(typ string) Header { return Header{Type: typ, Time: now, SessionID: "20260101-000000-abcdef"} }
	args := map[string]any{"path": "/home/me/notes/todo.md", "content": strings.Repeat("remember the milk ", 8)}
	for _, bc := range []struct {
		name   string
		synced bool
		events []Event
	}{
		{"unsynced", false, []Event{
			&AssistantMessage{Header: head(TypeAssistantMessage), Turn: 3, Content: strings.Repeat("A finished reply. ", 20)},
			&TurnDone{Header: head(TypeTurnDone), Turn: 3, Reason: ReasonStop, Metrics: Metrics{PromptTokens: 812, EvalTokens: 96,
				EvalDuration: 1200 * time.Millisecond, TotalDuration: 1500 * time.Millisecond}},
		}},
		{"synced", true, []Event{
			&ToolResultEvent{Header: head(TypeToolResult), Turn: 3, CallID: "call_k2j4h5g6", Tool: "fs__write_file", OK: true,
				DurationMS: 12, Preview: "wrote " + fmt.Sprint(args["path"]), Size: 32},
			&PermissionEvent{Header: head(TypePermission), Turn: 3, CallID: "call_k2j4h5g6", Tool: "fs__write_file",
				Decision: "allowed", By: "policy", Reason: "fs__write_file is allow-listed", Mode: "approve"},
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for _, e := range bc.events {
				if write, sync := logged(e); !write || sync != bc.synced {
					b.Fatalf("%T: logged() = write %v, sync %v; this sub-benchmark needs write true, sync %v", e, write, sync, bc.synced)
				}
			}
			l, err := eventlog.OpenLog(b.TempDir(), "bench")
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = l.Close() })
			i := 0
			for b.Loop() {
				if _, err := l.Write(bc.events[i%len(bc.events)], bc.synced); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkLoad measures reading a session log back (LoadLog, as Resume
// does) of 1,000 and 10,000 events: turns of a user message, a tool call
// with its permission and result, and the model's reply, with the history
// messages between them. The time must grow linearly: ns/op of events=10000
// about ten times that of events=1000, and ns/event about the same.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			path := writeBenchLog(b, n)
			fi, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(fi.Size())
			b.ReportAllocs()
			for b.Loop() {
				evs, warns, err := LoadLog(path)
				if err != nil || len(warns) != 0 || len(evs) != n {
					b.Fatalf("LoadLog: %d events, warnings %q, %v; want %d", len(evs), warns, err, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/event")
		})
	}
}

// writeBenchLog writes a log of exactly n events, a realistic mix, and
// returns its path.
func writeBenchLog(b *testing.B, n int) string {
	b.Helper()
	const id = "20260101-000000-abcdef"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var evs []Event
	add := func(e Event, typ string) {
		h := e.Head()
		h.Type, h.Time, h.SessionID = typ, t0.Add(time.Duration(len(evs))*time.Second), id
		evs = append(evs, e)
	}
	add(&SessionStarted{Model: "qwen3:8b", Host: "http://127.0.0.1:11434"}, TypeSessionStarted)
	add(&ServerStatusEvent{Server: "fs", State: "connected", Summary: "connected (14 tools)", Transport: "stdio", Tools: 14}, TypeServerStatus)
	reply := strings.Repeat("Here is what I found in the file, with a few words of explanation. ", 8)
	result := strings.Repeat(`{"name":"todo.md","size":1234,"lines":["buy milk","call Ada"]} `, 6)
	for turn := 1; len(evs) < n; turn++ {
		callID := fmt.Sprintf("call_%08d", turn)
		args := api.NewToolCallFunctionArguments()
		args.Set("path", "/home/me/notes/todo.md")
		call := ToolCallRecord{ID: callID, Function: ToolCallRecordFunc{Name: "fs__read_text_file", Arguments: args.ToMap()}}
		prompt := fmt.Sprintf("What is on my list today (%d)?", turn)
		add(&UserMessage{Turn: turn, Text: prompt}, TypeUserMessage)
		add(&MessageEvent{Turn: turn, Role: "user", Content: prompt}, TypeMessage)
		add(&MessageEvent{Turn: turn, Role: "assistant", Thinking: "The user wants the list; read the file.", ToolCalls: []ToolCallRecord{call}}, TypeMessage)
		add(&ToolCallEvent{Turn: turn, CallID: callID, Server: "fs", Tool: "fs__read_text_file", Arguments: args.ToMap(), ReadOnly: true}, TypeToolCall)
		add(&PermissionEvent{Turn: turn, CallID: callID, Tool: "fs__read_text_file", Decision: "allowed", By: "policy",
			Reason: "fs__read_text_file is allow-listed", Mode: "approve"}, TypePermission)
		add(&ToolResultEvent{Turn: turn, CallID: callID, Tool: "fs__read_text_file", OK: true, DurationMS: 12, Preview: result, Size: len(result)}, TypeToolResult)
		add(&MessageEvent{Turn: turn, Role: "tool", Content: result, ToolName: "fs__read_text_file", ToolCallID: callID}, TypeMessage)
		add(&MessageEvent{Turn: turn, Role: "assistant", Content: reply}, TypeMessage)
		add(&AssistantMessage{Turn: turn, Round: 1, Content: reply}, TypeAssistantMessage)
		add(&TurnDone{Turn: turn, Reason: ReasonStop, Metrics: Metrics{PromptTokens: 900 + turn, EvalTokens: 120,
			EvalDuration: 2 * time.Second, TotalDuration: 3 * time.Second}}, TypeTurnDone)
	}
	evs = evs[:n]
	var sb strings.Builder
	for _, e := range evs {
		line, err := json.Marshal(e)
		if err != nil {
			b.Fatal(err)
		}
		sb.Write(line)
		sb.WriteByte('\n')
	}
	path := filepath.Join(b.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return path
}
