package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"
	"github.com/ollama/ollama/api"

	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/eventtest"
	"latch/session/ollamatest"
)

// exportFormats are latch export's formats.
var exportFormats = []string{session.ExportMarkdown, session.ExportHTML, session.ExportJSON}

// export exports session id of dir in format, redacting the credentials
// of servers.
func export(t *testing.T, dir, id, format string, servers ...session.ServerConfig) string {
	t.Helper()
	out, _, err := session.Export(dir, id, session.ExportOptions{Format: format, Servers: servers,
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatalf("Export(%s, %s): %v", id, format, err)
	}
	return string(out)
}

// TestExportMarkdownGolden: the md transcript of a small fixed session.
// The reply's fence and image stay inside a longer fence, shown as text.
func TestExportMarkdownGolden(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("testdata", "export_small.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(logFile(dir, "20261120-090000-small0"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, []byte(export(t, dir, "20261120-090000-small0", session.ExportMarkdown)))
}

// exportLeftOut are the event types a transcript (md, html) leaves out,
// and why (docs/SESSIONS.md, "Exporting" says the same).
var exportLeftOut = map[string]string{
	session.TypeAssistantDelta:  "never logged: the assistant_message holds the whole reply",
	session.TypeThinkingDelta:   "never logged: the assistant_message holds the whole thinking",
	session.TypeToolProgress:    "never logged",
	session.TypeSamplingDelta:   "never logged: the sampling event holds the whole answer",
	session.TypeCompactionDelta: "never logged: the compaction event holds the whole summary",
	session.TypeMessage:         "the model's copy of what the other events show (only a tool answer without a tool_result is shown)",
}

// TestExportShowsEveryEventKind: an event of each type that a log holds
// shows in the md and html transcripts (its text, or for one without any,
// a line of its own), and every logged event is a line of the json
// export; the types left out are exactly those listed.
func TestExportShowsEveryEventKind(t *testing.T) {
	for _, typ := range session.EventTypes() {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			id := "20261201-000000-kinds0"
			start := &session.SessionStarted{Header: session.Header{Time: time.Unix(0, 0).UTC(), SessionID: id}, Model: "m"}
			mark := "MARK" + strings.ReplaceAll(typ, "_", "")
			e := eventtest.PlantAll(session.NewEvent(typ), mark)
			*e.Head() = session.Header{Type: typ, Time: time.Unix(1, 0).UTC(), SessionID: id}
			eventtest.WriteEditedLog(t, logFile(dir, id), []session.Event{start})
			before := map[string]string{}
			for _, f := range exportFormats {
				before[f] = export(t, dir, id, f)
			}
			eventtest.WriteEditedLog(t, logFile(dir, id), []session.Event{start, e})
			evs, _, err := session.LoadLog(logFile(dir, id))
			if err != nil {
				t.Fatal(err)
			}
			logged := len(evs) == 2
			why, left := exportLeftOut[typ]
			if !logged {
				if !left {
					t.Fatalf("%s is not logged, so no export shows it: list it in exportLeftOut (and the docs)", typ)
				}
				return
			}
			if js := export(t, dir, id, session.ExportJSON); strings.Count(js, "\n") != 2 || !strings.Contains(js, `"type":"`+typ+`"`) {
				t.Errorf("json export %q, want both events a line each", js)
			}
			for _, f := range []string{session.ExportMarkdown, session.ExportHTML} {
				out := export(t, dir, id, f)
				shown := strings.Contains(out, mark) || (len(eventtest.Fields(typ)) <= 2 && out != before[f])
				switch {
				case left && shown:
					t.Errorf("%s is in exportLeftOut (%s) but the %s transcript shows it:\n%s", typ, why, f, out)
				case !left && !shown:
					t.Errorf("the %s transcript does not show %s:\n%s", f, typ, out)
				}
			}
		})
	}
}

// htmlPlant is markup a model or a server would slip into a transcript: a
// script, and an image fetched from elsewhere when the page is opened.
const htmlPlant = `<script>alert(1)</script><img src="https://evil.example/t.png">![t](https://evil.example/t.png)`

// TestExportEveryFieldRedactedAndEscaped plants, as the other surfaces'
// tests do, terminal escapes, markup and a configured server's credential
// in every text field of every event type, in a log a person (or an
// attacker) edited, and exports it in every format: the credential is in
// none, no control character is raw, html holds no markup of the plant's
// (no script, nothing fetched), and md holds the plant only inside code.
func TestExportEveryFieldRedactedAndEscaped(t *testing.T) {
	plant := mcptestutil.Plant(plantSecret) + htmlPlant
	vault := session.ServerConfig{Name: "vault", Transport: "http", URL: "https://vault.example/mcp", Token: plantSecret, Disabled: true}
	dir := t.TempDir()
	id := "20261201-000000-plant1"
	checks := 0
	for _, typ := range session.EventTypes() {
		for _, f := range eventtest.Fields(typ) {
			evs := eventtest.PlantIn(eventtest.Scenario(), typ, f, plant)
			for _, e := range evs {
				e.Head().SessionID = id
			}
			eventtest.WriteEditedLog(t, logFile(dir, id), evs)
			for _, format := range exportFormats {
				out := export(t, dir, id, format, vault)
				where := typ + "." + f + " in " + format
				checkOut(t, where, out)
				switch format {
				case session.ExportHTML:
					if strings.Contains(out, "<script") || strings.Contains(out, "<img") {
						t.Errorf("%s: markup survived: %.300q", where, out)
					}
				case session.ExportMarkdown:
					if rest := outsideCode(out); strings.ContainsAny(rest, "<>") || strings.Contains(rest, "](") {
						t.Errorf("%s: markup outside code: %.300q", where, rest)
					}
				}
				checks++
			}
		}
	}
	t.Logf("%d (event type, field, format) exports checked", checks)
}

// outsideCode is md without its fenced blocks, code spans and the
// thinking's <details> lines: what a viewer would interpret.
func outsideCode(md string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		if fence != "" {
			if strings.TrimRight(line, "`") == "" && len(line) >= len(fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(line, "```") {
			fence = line[:len(line)-len(strings.TrimLeft(line, "`"))]
			continue
		}
		if line == "<details><summary>thinking</summary>" || line == "</details>" {
			continue
		}
		b.WriteString(withoutSpans(line) + "\n")
	}
	return b.String()
}

// withoutSpans removes the code spans of a line.
func withoutSpans(line string) string {
	var b strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			b.WriteByte(line[i])
			i++
			continue
		}
		n := 0
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		delim := strings.Repeat("`", n)
		end := -1
		for j := i + n; j < len(line); {
			k := strings.Index(line[j:], delim)
			if k < 0 {
				break
			}
			k += j
			if (k+n == len(line) || line[k+n] != '`') && (k == 0 || line[k-1] != '`') {
				end = k
				break
			}
			j = k + 1
		}
		if end < 0 {
			b.WriteString(line[i:])
			break
		}
		i = end + n
	}
	return b.String()
}

// TestExportOfARealSession: a session that thought, called a tool allowed
// by policy and one a person approved exports, while it is still open
// (export takes no lock), with the prompt, the folded thinking, each call
// with its arguments and result, and each decision with who made it.
func TestExportOfARealSession(t *testing.T) {
	t.Parallel()
	box := newLogBox()
	dir := t.TempDir()
	ol := newServer(t, logModel)
	ol.Script(ollamatest.Turn{Chunks: append(ollamatest.ThinkingTokens("Look, then put."),
		ollamatest.Chunk{ToolCalls: []api.ToolCall{logCall("call_peek", "box__peek"), logCall("call_put", "box__put", "thing", "hat")}})},
		ollamatest.TextTurn("A hat is in the box."))
	s := session.New(logOptions(ol, dir, box, permissions.Approve))
	r := startLogged(t, s)
	send(t, s, "fill the box")
	evs := r.until(func(e session.Event) bool { _, ok := e.(*session.ApprovalParkedEvent); return ok })
	ap := evs[len(evs)-1].(*session.ApprovalParkedEvent).ApprovalID
	if err := s.Decide(ap, true); err != nil {
		t.Fatal(err)
	}
	finishedWith(t, r.turn(), session.ReasonStop)

	md := export(t, dir, s.ID(), session.ExportMarkdown)
	for _, want := range []string{
		"## Turn 1 · you", "fill the box",
		"<details><summary>thinking</summary>", "Look, then put.",
		"tool call `box__peek` on `box`", "tool call `box__put` on `box`", `"thing": "hat"`,
		"decision on `call_peek`: `allowed` by `policy`", "waits for approval `" + ap + "`",
		"approval `" + ap + "` of call `call_put`: `approved` by `user`",
		"result of `call_put` (`box__put`): ok", "put hat into the box",
		"A hat is in the box.", "turn 1 ended: `stop`",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the md export lacks %q:\n%s", want, md)
		}
	}
	html := export(t, dir, s.ID(), session.ExportHTML)
	for _, want := range []string{"<details><summary>thinking</summary>", "Look, then put.", "&#34;thing&#34;: &#34;hat&#34;", "Content-Security-Policy"} {
		if !strings.Contains(html, want) {
			t.Errorf("the html export lacks %q:\n%s", want, html)
		}
	}
	logged, _, err := session.LoadLog(logFile(dir, s.ID()))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSuffix(export(t, dir, s.ID(), session.ExportJSON), "\n"), "\n"); len(lines) != len(logged) {
		t.Errorf("json export: %d lines, want one per logged event (%d)", len(lines), len(logged))
	}
	if _, _, err := session.Export(dir, "20261201-000000-nosuch", session.ExportOptions{}); !errors.Is(err, session.ErrNoSession) {
		t.Errorf("Export of an unknown id = %v, want no session", err)
	}
}
