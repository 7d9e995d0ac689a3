package session_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"latch/mcp/mcptestutil"
	"latch/session"
	"latch/session/eventtest"
	"latch/ui/sanitize"
)

// TestEventTypesComplete keeps session.EventTypes (and so every test that
// plants text in every event) complete: each struct in the package that
// embeds Header must be listed.
func TestEventTypesComplete(t *testing.T) {
	listed := map[string]bool{}
	for _, typ := range session.EventTypes() {
		listed[reflect.TypeOf(session.NewEvent(typ)).Elem().Name()] = true
	}
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				if id, ok := fl.Type.(*ast.Ident); ok && len(fl.Names) == 0 && id.Name == "Header" {
					found++
					if !listed[ts.Name.Name] {
						t.Errorf("event type %s is missing from eventTypes (event.go)", ts.Name.Name)
					}
				}
			}
			return true
		})
	}
	if found < 18 {
		t.Fatalf("found only %d event types in the source", found)
	}
}

// plantSecret is a credential of a configured server; the plant carries it
// with every terminal escape an attacker would try.
const plantSecret = "vault-token-5eCr3T-9876"

// TestEveryFieldRedactedAndEscaped publishes, for every event type and
// every text field of it, an event with the plant in that field, and
// checks what leaves the session: the session log's bytes, the event
// subscribers get (in its wire form) and its display form. The credential
// appears in none, and no control character is raw in the log or the
// wire form, or present at all in the display form.
func TestEveryFieldRedactedAndEscaped(t *testing.T) {
	dir := t.TempDir()
	s := session.New(session.Options{ID: "20261201-000000-plant0", LogDir: dir,
		Servers: []session.ServerConfig{{Name: "vault", Transport: "http", URL: "https://vault.example/mcp",
			Token: plantSecret, Disabled: true}}})
	defer s.Close()
	sub := s.Subscribe()
	plant := mcptestutil.Plant(plantSecret)

	combos, published := 0, 0
	for _, typ := range session.EventTypes() {
		fields := eventtest.Fields(typ)
		if len(fields) == 0 {
			t.Errorf("%s: no text fields found", typ)
		}
		for _, f := range fields {
			e := session.NewEvent(typ)
			*e.Head() = session.Header{Type: typ, Time: time.Now().UTC(), SessionID: s.ID()}
			s.PublishForTest(eventtest.Plant(e, f, plant))
			published++
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			evs, ok := sub.Next(ctx)
			cancel()
			if !ok || len(evs) == 0 {
				t.Fatalf("%s.%s: nothing reached the subscriber", typ, f)
			}
			for _, got := range evs {
				if _, isErr := got.(*session.Error); isErr && typ != session.TypeError {
					t.Fatalf("%s.%s: the session reported: %+v", typ, f, got)
				}
				wire, err := session.Marshal(got)
				if err != nil {
					t.Fatal(err)
				}
				checkOut(t, typ+"."+f+" on the wire", string(wire))
				combos++
				checkDisplay(t, typ+"."+f+" displayed", session.Display(got))
				combos++
			}
		}
	}
	s.Close()
	log, err := os.ReadFile(s.LogPathForTest())
	if err != nil {
		t.Fatal(err)
	}
	checkOut(t, "the session log", string(log))
	if n := strings.Count(string(log), "\n"); n == 0 {
		t.Fatal("nothing was logged")
	}
	combos += published // each logged (or, for deltas and progress, rightly not)
	t.Logf("%d (event type, field) plants; %d (event type, field, surface) checks: wire, display, log", published, combos)
}

// checkOut fails if out holds the credential or a raw control character.
func checkOut(t *testing.T, where, out string) {
	t.Helper()
	if strings.Contains(out, plantSecret) {
		t.Errorf("%s: the credential leaked: %.200q", where, out)
	}
	if f := mcptestutil.FirstForbidden(out); f != "" {
		t.Errorf("%s: %q survived: %.200q", where, f, out)
	}
}

// checkDisplay fails if any string in e holds the credential or a control
// character (in the display form there are none, escaped or not).
func checkDisplay(t *testing.T, where string, e session.Event) {
	t.Helper()
	sanitize.MapStrings(e, func(s string) string {
		checkOut(t, where, s)
		return s
	})
}
