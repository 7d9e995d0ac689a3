package permissions

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseModeRoundTrip(t *testing.T) {
	t.Parallel()
	want := []string{"read_only", "ask", "approve", "auto"}
	if got := Modes(); !slices.Equal(got, want) {
		t.Fatalf("Modes() = %v, want %v", got, want)
	}
	for i, s := range want {
		m, err := ParseMode(s)
		if err != nil || m != Mode(i) || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v; want %v", s, m, err, Mode(i))
		}
	}
	// Modes returns a copy: changing it changes nothing.
	Modes()[0] = "auto"
	if ReadOnly.String() != "read_only" {
		t.Fatal("Modes() exposed the package's own slice")
	}
}

func TestParseModeIsExact(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "Ask", "ASK", " ask", "ask ", "read-only", "readonly", "r", "auto*", "Mode(1)"} {
		m, err := ParseMode(s)
		if err == nil {
			t.Errorf("ParseMode(%q) = %v, want an error", s, m)
			continue
		}
		if m != ReadOnly {
			t.Errorf("ParseMode(%q) returned %v with its error, want read_only", s, m)
		}
		if !errors.Is(err, ErrUnknownMode) || !strings.Contains(err.Error(), "read_only, ask, approve, auto") {
			t.Errorf("ParseMode(%q) error = %q, want ErrUnknownMode listing the modes", s, err)
		}
	}
	_, err := ParseMode("yolo")
	if got, want := err.Error(), `"yolo" is not a mode (read_only, ask, approve, auto)`; got != want {
		t.Errorf("error = %q, want %q (the config loader's wording)", got, want)
	}
}

func TestModeText(t *testing.T) {
	t.Parallel()
	type doc struct {
		Mode    Mode            `json:"mode"`
		Servers map[string]Mode `json:"servers"`
	}
	in := doc{Mode: Approve, Servers: map[string]Mode{"fs": ReadOnly, "crm": Auto}}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"mode":"approve","servers":{"crm":"auto","fs":"read_only"}}`; string(b) != want {
		t.Fatalf("json = %s, want %s", b, want)
	}
	var out doc
	if err := json.Unmarshal(b, &out); err != nil || out.Mode != Approve || out.Servers["crm"] != Auto {
		t.Fatalf("round trip = %+v, %v", out, err)
	}

	m := Auto
	if err := m.UnmarshalText([]byte("Auto")); err == nil || m != Auto {
		t.Errorf("UnmarshalText(Auto) = %v, mode %v; want an error and the mode unchanged", err, m)
	}
	if _, err := Mode(7).MarshalText(); !errors.Is(err, ErrUnknownMode) {
		t.Errorf("Mode(7).MarshalText() error = %v, want ErrUnknownMode", err)
	}
	if got := Mode(-1).String(); got != "Mode(-1)" {
		t.Errorf("Mode(-1).String() = %q", got)
	}
}

func TestDecisionText(t *testing.T) {
	t.Parallel()
	for d, want := range map[Decision]string{Allow: "allowed", Deny: "denied", AskUser: "asked", Park: "parked"} {
		if d.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(d), d.String(), want)
		}
		b, err := d.MarshalText()
		if err != nil || string(b) != want {
			t.Errorf("%v.MarshalText() = %s, %v", d, b, err)
		}
		var back Decision = -1
		if err := back.UnmarshalText(b); err != nil || back != d {
			t.Errorf("UnmarshalText(%s) = %v, %v", b, back, err)
		}
	}
	if got := Decision(9).String(); got != "Decision(9)" {
		t.Errorf("Decision(9).String() = %q", got)
	}
	if _, err := Decision(9).MarshalText(); !errors.Is(err, ErrUnknownDecision) {
		t.Errorf("Decision(9).MarshalText() error = %v", err)
	}
	d := Park
	if err := d.UnmarshalText([]byte("allow")); !errors.Is(err, ErrUnknownDecision) || d != Park {
		t.Errorf("UnmarshalText(allow) = %v, decision %v", err, d)
	}
}
