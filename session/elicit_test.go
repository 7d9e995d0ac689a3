package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/mcp"
	"latch/mcp/mcptestutil"
	"latch/permissions"
	"latch/session"
	"latch/session/ollamatest"
)

// elicitHarness is a session over one MCP server in auto mode (calls run
// without asking) whose turns call one tool each; the server's requests
// for input come to the test as events.
type elicitHarness struct {
	t   *testing.T
	s   *session.Session
	ol  *ollamatest.Server
	r   *reader
	dir string
	n   int
}

func newElicitHarness(t *testing.T, cfg session.ServerConfig, noOne bool) *elicitHarness {
	t.Helper()
	ol := newServer(t, toolsModel)
	dir := t.TempDir()
	s := newSession(t, ol, session.Options{Model: toolsModel.Name, LogDir: dir, NonInteractive: noOne,
		Servers: []session.ServerConfig{cfg}, Policy: permissions.Policy{Mode: permissions.Auto}})
	h := &elicitHarness{t: t, s: s, ol: ol, r: newReader(t, s), dir: dir}
	s.StartServers()
	s.WaitServers(bounded(t))
	mcptestutil.WaitFor(t, timeout, cfg.Name+" connected", func() bool {
		for _, st := range s.Servers() {
			if st.Name == cfg.Name && st.State == session.StateConnected {
				return true
			}
		}
		return false
	})
	return h
}

// call has the model call tool (with string arguments): it returns the
// events up to the server's request for input, if it makes one, else up
// to the end of the turn.
func (h *elicitHarness) call(tool string, kv ...string) []session.Event {
	h.t.Helper()
	h.n++
	h.ol.Script(callsTurn(toolCall("call_el"+string(rune('a'+h.n)), tool, kv...)), ollamatest.TextTurn("ok"))
	send(h.t, h.s, "go")
	return h.r.until(func(e session.Event) bool {
		switch e.(type) {
		case *session.ElicitationEvent, *session.TurnDone:
			return true
		}
		return false
	})
}

// request is the request for input that ends evs.
func (h *elicitHarness) request(evs []session.Event) *session.ElicitationEvent {
	h.t.Helper()
	ev, ok := evs[len(evs)-1].(*session.ElicitationEvent)
	if !ok {
		h.t.Fatalf("no request for input: %s", kinds(evs))
	}
	return ev
}

// result finishes the turn and returns its tool result and the answer
// event the request got.
func (h *elicitHarness) result() (*session.ToolResultEvent, *session.ElicitationAnswerEvent) {
	h.t.Helper()
	evs := h.r.turn()
	return one[*session.ToolResultEvent](h.t, evs), one[*session.ElicitationAnswerEvent](h.t, evs)
}

// log is the session log's text.
func (h *elicitHarness) log() string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, h.s.ID()+".jsonl"))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

func deskServer(mark, url string) session.ServerConfig {
	return session.ServerConfig{Name: "desk", Transport: mcp.TransportInProcess, InProcess: mcptestutil.FormServer(mark, url)}
}

// TestElicitFormAnswered: a form with every kind of field, answered by the
// person: content that does not fit the schema is refused with the field
// named (the form keeps waiting); what fits goes to the server. The
// password's value is redacted from the answer's event and the log, and
// named as the person's in the tool's result (which echoes it).
func TestElicitFormAnswered(t *testing.T) {
	h := newElicitHarness(t, deskServer("", "https://example.com"), false)
	ev := h.request(h.call("desk__fill_form"))
	if ev.Server != "desk" || ev.Mode != session.ElicitForm || ev.Message != "Please tell us about yourself" || len(ev.Fields) != 14 {
		t.Fatalf("request: %+v", ev)
	}
	content := mcp.FormDefaults(ev.Fields)
	content["name"], content["email"] = "Ada", "not-an-address"
	err := h.s.AnswerElicitation(ev.ID, session.ElicitAccept, content)
	var fe *session.FormError
	if !errors.As(err, &fe) || fe.Problems["email"] != "not an email address" || len(fe.Problems) != 1 {
		t.Fatalf("bad content: %v", err)
	}
	content["email"], content["pin"] = "ada@example.com", "s3cr3t-pin-4711"
	if err := h.s.AnswerElicitation(ev.ID, session.ElicitAccept, content); err != nil {
		t.Fatal(err)
	}
	res, ans := h.result()
	if ans.Action != session.ElicitAccept || ans.By != "user" || ans.Content["name"] != "Ada" || ans.Content["pin"] != "[redacted]" {
		t.Errorf("answer event: %+v", ans)
	}
	if !strings.Contains(res.Content, `"action":"accept"`) || !strings.Contains(res.Content, `"email":"ada@example.com"`) ||
		!strings.Contains(res.Content, `"age":30`) || !strings.Contains(res.Content, `"pin":"«your password for desk's form field pin»"`) {
		t.Errorf("tool result: %s", res.Content)
	}
	if log := h.log(); strings.Contains(log, "s3cr3t-pin-4711") || !strings.Contains(log, `"type":"elicitation_answer"`) {
		t.Errorf("the log holds the password, or no answer:\n%s", log)
	}
	if err := h.s.AnswerElicitation(ev.ID, session.ElicitAccept, content); err == nil {
		t.Error("a second answer to the same request was taken")
	}
}

// TestElicitDeclineCancelAndURL: decline and cancel reach the server as
// such; a URL request shows its URL and domain and is declined.
func TestElicitDeclineCancelAndURL(t *testing.T) {
	h := newElicitHarness(t, deskServer("", "https://sign.example.com/in?x=1"), false)
	for _, action := range []string{session.ElicitDecline, session.ElicitCancel} {
		ev := h.request(h.call("desk__fill_form"))
		if err := h.s.AnswerElicitation(ev.ID, action, map[string]any{"ignored": true}); err != nil {
			t.Fatal(err)
		}
		res, ans := h.result()
		if ans.Action != action || ans.Content != nil || res.Content != `{"action":"`+action+`"}` {
			t.Errorf("%s: result %s, answer %+v", action, res.Content, ans)
		}
	}
	ev := h.request(h.call("desk__open_link"))
	if ev.Mode != session.ElicitURL || ev.URL != "https://sign.example.com/in?x=1" || ev.Domain != "sign.example.com" ||
		ev.ElicitationID != "el-1" || len(ev.Fields) != 0 {
		t.Fatalf("URL request: %+v", ev)
	}
	if err := h.s.AnswerElicitation(ev.ID, session.ElicitDecline, nil); err != nil {
		t.Fatal(err)
	}
	if res, _ := h.result(); res.Content != `{"action":"decline"}` {
		t.Errorf("URL declined: %s", res.Content)
	}
}

// TestElicitNoOneToAnswer: with -p (NonInteractive) a request is declined
// at once, by policy, with the reason.
func TestElicitNoOneToAnswer(t *testing.T) {
	h := newElicitHarness(t, deskServer("", "https://example.com"), true)
	evs := h.call("desk__fill_form")
	h.request(evs) // shown (and logged), then declined
	res, ans := h.result()
	if ans.Action != session.ElicitDecline || ans.By != "policy" || !strings.Contains(ans.Reason, "-p") || res.Content != `{"action":"decline"}` {
		t.Errorf("result %s, answer %+v", res.Content, ans)
	}
}

// TestElicitWithdrawn: a request whose call ends (the turn is cancelled)
// is answered for the person: cancelled, by the server's end.
func TestElicitWithdrawn(t *testing.T) {
	h := newElicitHarness(t, deskServer("", "https://example.com"), false)
	ev := h.request(h.call("desk__fill_form"))
	h.s.Cancel()
	evs := h.r.turn()
	ans := one[*session.ElicitationAnswerEvent](t, evs)
	if ans.ID != ev.ID || ans.Action != session.ElicitCancel || ans.By != "server" || !strings.Contains(ans.Reason, "ended") {
		t.Errorf("answer %+v", ans)
	}
	if err := h.s.AnswerElicitation(ev.ID, session.ElicitAccept, nil); err == nil || !strings.Contains(err.Error(), "withdrew") {
		t.Errorf("answering a withdrawn request: %v", err)
	}
}

// TestElicitHostileServer: a server plants escapes and a credential in its
// message, field titles, descriptions, enum names and URL. The credential
// never leaves the session; the display copy holds no control character;
// a URL with escapes is declined unshown; an IDN domain is shown in ASCII.
func TestElicitHostileServer(t *testing.T) {
	plant := mcptestutil.Plant(plantSecret)
	for _, c := range []struct {
		url, domain string
		shown       bool
	}{
		{"https://example.com/" + plant, "", false},
		{"https://\u0430pple.example/login\u202egnp.exe", "xn--pple-43d.example", true},
	} {
		cfg := deskServer(plant, c.url)
		cfg.Token = plantSecret
		h := newElicitHarness(t, cfg, false)
		form := h.request(h.call("desk__fill_form"))
		if err := h.s.AnswerElicitation(form.ID, session.ElicitDecline, nil); err != nil {
			t.Fatal(err)
		}
		h.result()
		evs := h.call("desk__open_link")
		link, ok := evs[len(evs)-1].(*session.ElicitationEvent)
		if !ok {
			t.Fatalf("no URL request: %s", kinds(evs))
		}
		if c.shown {
			if link.Domain != c.domain || link.URL != "https://xn--pple-43d.example/login%E2%80%AEgnp.exe" {
				t.Errorf("domain %q, URL %q: want %q, all in ASCII", link.Domain, link.URL, c.domain)
			}
			if err := h.s.AnswerElicitation(link.ID, session.ElicitCancel, nil); err != nil {
				t.Fatal(err)
			}
		}
		_, ans := h.result()
		if !c.shown && (ans.By != "policy" || !strings.Contains(ans.Reason, "http and https")) {
			t.Errorf("a URL with escapes: %+v", ans)
		}
		for _, e := range []session.Event{form, link} {
			b, _ := session.Marshal(e)
			shown, _ := session.Marshal(session.Display(e))
			if strings.Contains(string(b), plantSecret) {
				t.Errorf("the credential left the session: %s", b)
			}
			if !strings.Contains(string(b), "[redacted]") {
				t.Errorf("the plant did not reach the event: %s", b)
			}
			d := session.Display(e).(*session.ElicitationEvent)
			all := d.Message + d.URL + d.Domain
			for _, f := range d.Fields {
				all += f.Title + f.Description
				for _, o := range f.Options {
					all += o.Title + o.Value
				}
			}
			if bad := mcptestutil.FirstForbidden(all); bad != "" {
				t.Errorf("%q in the display copy: %s", bad, shown)
			}
		}
		if log := h.log(); strings.Contains(log, plantSecret) {
			t.Error("the credential is in the log")
		}
	}
}

// TestElicitFlood: a server that asks for twenty forms at once gets two in
// front of the person; the rest are declined for the person at once, the
// answer saying why, and the screen is not buried.
func TestElicitFlood(t *testing.T) {
	h := newElicitHarness(t, deskServer("", "https://example.com"), false)
	h.n++
	h.ol.Script(callsTurn(toolCall("call_flood", "desk__flood_forms")), ollamatest.TextTurn("ok"))
	send(h.t, h.s, "go")
	asked, policy := map[string]bool{}, 0
	answered := map[string]bool{}
	h.r.until(func(e session.Event) bool {
		switch e := e.(type) {
		case *session.ElicitationEvent:
			asked[e.ID] = true
		case *session.ElicitationAnswerEvent:
			answered[e.ID] = true
			if e.By == "policy" {
				policy++
				if !strings.Contains(e.Reason, "at most 2 at once") {
					t.Errorf("declined for the person, saying %q", e.Reason)
				}
			}
		}
		return len(asked) == 20 && policy == 18
	})
	var open []string
	for id := range asked {
		if !answered[id] {
			open = append(open, id)
		}
	}
	if len(open) != 2 {
		t.Fatalf("%d requests in front of the person, want 2", len(open))
	}
	for _, id := range open {
		if err := h.s.AnswerElicitation(id, session.ElicitDecline, nil); err != nil {
			t.Fatal(err)
		}
	}
	res := one[*session.ToolResultEvent](t, h.r.turn())
	if res.Content != `{"decline":20}` {
		t.Errorf("the server got %s, want 20 declines", res.Content)
	}
}

// TestElicitWithdrawnWhenTheCallEnds: a form a server asked for during a
// call, whose handler returned without waiting for it (over stdio a
// request's context outlives its call), is withdrawn when the server has
// no call running any more: an answer would go nowhere.
func TestElicitWithdrawnWhenTheCallEnds(t *testing.T) {
	h := newElicitHarness(t, deskServer("", "https://example.com"), false)
	ev := h.request(h.call("desk__ask_and_leave"))
	evs := h.r.until(func(e session.Event) bool {
		a, ok := e.(*session.ElicitationAnswerEvent)
		return ok && a.ID == ev.ID
	})
	ans := evs[len(evs)-1].(*session.ElicitationAnswerEvent)
	if ans.Action != session.ElicitCancel || ans.By != "server" {
		t.Errorf("answer %+v, want cancelled by the server's end", ans)
	}
	if err := h.s.AnswerElicitation(ev.ID, session.ElicitDecline, nil); err == nil {
		t.Error("a withdrawn form still took an answer")
	}
}
