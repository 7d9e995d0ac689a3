package gateway_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"latch/gateway"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
)

// rawStdio is a gateway served on pipes to a test that writes the client's
// lines itself and reads the answers.
type rawStdio struct {
	r   *rig
	in  io.Writer
	out *bufio.Reader
}

// newRawStdio serves a rig holding holdServer's tools (echo and hold
// allowed) over stdio, after the initialize handshake at version.
func newRawStdio(t *testing.T, h *holdServer, version string) *rawStdio {
	t.Helper()
	r := newGatewayIn(t, gateway.Options{}, false, session.Options{Policy: permissions.Policy{Mode: permissions.Auto,
		ServerAllow: map[string][]string{"up": {"echo", "hold"}}}},
		session.ServerConfig{Name: "up", Transport: "inprocess", InProcess: h.srv})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- r.g.ServeStdio(ctx, inR, outW)
		_ = outW.Close()
	}()
	t.Cleanup(func() { h.release(); _ = inW.Close(); _ = outR.Close(); stop(); <-done })
	s := &rawStdio{r: r, in: inW, out: bufio.NewReader(outR)}
	s.send(t, `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"`+version+
		`","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := s.answer(t); !strings.Contains(got, `"id":"init"`) {
		t.Fatalf("initialize answered %s", got)
	}
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// answer is the gateway's next line, within a hang's bound.
func (s *rawStdio) answer(t *testing.T) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		line, _ := s.out.ReadString('\n')
		got <- strings.TrimSuffix(line, "\n")
	}()
	select {
	case line := <-got:
		return line
	case <-time.After(mcptestutil.HangBound(20 * time.Second)):
		t.Fatal("no answer from the gateway")
	}
	return ""
}

// mcpgoAnswer is what mcp-go's own handling of line answers, in the
// stdio client's session as far as the answer shows.
func (s *rawStdio) mcpgoAnswer(t *testing.T, line string) string {
	t.Helper()
	b, err := json.Marshal(s.r.g.MCPServer().HandleMessage(context.Background(), json.RawMessage(line)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A tool call over stdio that the gateway answers without mcp-go's stdio
// server is answered byte for byte as mcp-go answers it, in both
// protocol eras: the handshake's (2025-11-25) and 2026-07-28's, whose
// results say they are complete and name latch. The id comes back as the
// client wrote it.
func TestStdioCallsAnsweredAsMCPGoAnswers(t *testing.T) {
	for _, c := range []struct {
		name, version, meta string
	}{
		{"2025-11-25", "2025-11-25", ""},
		{"2026-07-28", "2026-07-28", `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"}},`},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newRawStdio(t, newHoldServer(), c.version)
			for _, id := range []string{`7`, `"call-7"`} {
				line := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{` + c.meta +
					`"name":"up__echo","arguments":{"text":"<hi> & 1e400"}}}`
				s.send(t, line)
				got, want := s.answer(t), s.mcpgoAnswer(t, line)
				if got != want {
					t.Errorf("answered\n%s\nmcp-go answers\n%s", got, want)
				}
				var res struct {
					ID     json.RawMessage `json:"id"`
					Result struct {
						Content []struct{ Text string } `json:"content"`
					} `json:"result"`
				}
				if err := json.Unmarshal([]byte(got), &res); err != nil || string(res.ID) != id ||
					len(res.Result.Content) != 1 || res.Result.Content[0].Text != "echo <hi> & 1e400" {
					t.Errorf("answer %s: not the call's id %s and its echo (%v)", got, id, err)
				}
			}
			if n := gateway.PlainCalls(s.r.g); n != 2 {
				t.Errorf("%d calls answered without mcp-go's stdio server, want both", n)
			}
		})
	}
}

// A call whose arguments hold a number past float64's range (1e400) is
// refused by mcp-go as unparsable before any handler runs; the plain
// path leaves it to mcp-go, so the gate and the log never see a call the
// HTTP transport would refuse. Numbers in range, exponents included, and
// an "e" in a string or a word stay on the plain path.
func TestStdioCallWithANumberPastFloatIsMCPGos(t *testing.T) {
	s := newRawStdio(t, newHoldServer(), "2025-11-25")
	line := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"up__echo","arguments":{"text":"x","n":1e400}}}`
	s.send(t, line)
	got, want := s.answer(t), s.mcpgoAnswer(t, line)
	if got != want {
		t.Errorf("answered\n%s\nmcp-go answers\n%s", got, want)
	}
	if strings.Contains(got, `"result"`) {
		t.Errorf("a call with 1e400 ran: %s", got)
	}
	if n := gateway.PlainCalls(s.r.g); n != 0 {
		t.Errorf("%d calls answered without mcp-go's stdio server, want none", n)
	}
	line = `{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"up__echo","arguments":{"text":"1e400 true","n":1.5e3,"b":false}}}`
	s.send(t, line)
	if got, want := s.answer(t), s.mcpgoAnswer(t, line); got != want {
		t.Errorf("answered\n%s\nmcp-go answers\n%s", got, want)
	}
	if n := gateway.PlainCalls(s.r.g); n != 1 {
		t.Errorf("%d calls answered without mcp-go's stdio server, want the one in range", n)
	}
}

// A call the client gives up (notifications/cancelled) ends at once: the
// upstream call is cancelled and the client answered, as mcp-go does for
// the calls it runs.
func TestStdioCallCancelledByTheClient(t *testing.T) {
	h := newHoldServer()
	s := newRawStdio(t, h, "2025-11-25")
	s.send(t, `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"up__hold"}}`)
	mcptestutil.WaitFor(t, mcptestutil.HangBound(20*time.Second), "the hold call running upstream", func() bool { return h.running.Load() == 1 })
	s.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":41,"reason":"gave up"}}`)
	if got := s.answer(t); !strings.Contains(got, `"id":41,`) {
		t.Fatalf("answered %s, not call 41", got)
	}
	if n := h.running.Load(); n != 0 {
		t.Errorf("%d hold calls still running upstream after the cancel", n)
	}
}
