package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

func TestKTokens(t *testing.T) {
	for n, want := range map[int]string{0: "0", 257: "257", 999: "999", 1000: "1k", 1228: "1.2k", 2048: "2k",
		4096: "4k", 3686: "3.6k", 10240: "10k", 10188: "9.9k", 40960: "40k", 131072: "128k"} {
		if got := kTokens(n); got != want {
			t.Errorf("kTokens(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCtxLevel(t *testing.T) {
	for _, tt := range []struct {
		c    session.ContextInfo
		want int
	}{
		{session.ContextInfo{Prompt: 100, NumCtx: 4096}, 0},
		{session.ContextInfo{Prompt: 2800, Eval: 67, NumCtx: 4096}, 0}, // 69.9%
		{session.ContextInfo{Prompt: 2800, Eval: 68, NumCtx: 4096}, 1}, // 70%
		{session.ContextInfo{Prompt: 3686, NumCtx: 4096}, 1},           // 90%
		{session.ContextInfo{Prompt: 3700, NumCtx: 4096}, 2},
		{session.ContextInfo{Prompt: 100, NumCtx: 4096, Truncated: true}, 2},
		{session.ContextInfo{Prompt: 100000}, 0}, // the context is not known
	} {
		if got := ctxLevel(tt.c); got != tt.want {
			t.Errorf("ctxLevel(%+v) = %d, want %d", tt.c, got, tt.want)
		}
	}
}

func TestParseNumCtx(t *testing.T) {
	for in, want := range map[string]int{"8192": 8192, "8k": 8192, "8K": 8192, "256": 256, "default": 0} {
		if n, ok := parseNumCtx(in); !ok || n != want {
			t.Errorf("parseNumCtx(%q) = %d, %v; want %d", in, n, ok, want)
		}
	}
	for _, in := range []string{"", "0", "-5", "lots", "8m", "99999999999", "1.5k"} {
		if n, ok := parseNumCtx(in); ok {
			t.Errorf("parseNumCtx(%q) = %d, want an error", in, n)
		}
	}
}

// ctxBackend is a fakeBackend whose context budget the test sets.
type ctxBackend struct {
	*fakeBackend
	info session.ContextInfo
}

func (b *ctxBackend) Context() session.ContextInfo { return b.info }

// TestGoldenContextMeter: the status line's meter at 80 columns, in
// colour (256): hidden before the first reply, plain at half, the busy
// colour near full, the failure colour and a mark when the prompt was cut.
func TestGoldenContextMeter(t *testing.T) {
	ol := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(ol.Close)
	sess := session.New(session.Options{Client: ol.Client(), Host: "127.0.0.1:11434", Model: "qwen3:8b",
		ID: "20261129-120000-abcdef"})
	t.Cleanup(sess.Close)
	lipgloss.SetColorProfile(termenv.ANSI256)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	for _, tt := range []struct {
		name string
		info session.ContextInfo
		want string
	}{
		{"empty", session.ContextInfo{}, ""},
		{"half", session.ContextInfo{NumCtx: 4096, Prompt: 1900, Eval: 148}, "ctx 2k/4k"},
		{"near_full", session.ContextInfo{NumCtx: 4096, Prompt: 3500, Eval: 120}, "ctx 3.5k/4k"},
		{"truncated", session.ContextInfo{NumCtx: 256, Prompt: 256, Eval: 1, Truncated: true}, "ctx 257/256 ✂ cut"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := &ctxBackend{fakeBackend: &fakeBackend{Session: sess}, info: tt.info}
			st := themes.Default()
			m := New(Options{Backend: b, Styles: st, FrameInterval: -1, Now: func() time.Time { return fixedNow },
				DarkBackground: true, Getenv: func(string) string { return "" }, ConfigHome: t.TempDir(), Profile: termenv.ANSI256})
			m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
			line := m.statusLine()
			plain := ansiStrip(line)
			if w := lipgloss.Width(line); w != 80 {
				t.Errorf("status line is %d columns wide, want 80", w)
			}
			if tt.want == "" && strings.Contains(plain, "ctx") || tt.want != "" && !strings.Contains(plain, tt.want) {
				t.Errorf("status line %q, want meter %q", plain, tt.want)
			}
			if tt.want != "" {
				if meter, style := ctxMeter(m.st, tt.info), ctxStyle(m.st, tt.info); meter != style.Render(ansiStrip(meter)) {
					t.Errorf("meter not drawn in its level's style")
				}
			}
			golden.RequireEqualEscape(t, []byte(line), true)
		})
	}
}

func ansiStrip(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b {
			for i < len(s) && !(s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z') {
				i++
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// runSlash types a slash command, presses Enter, and hands the command's
// answers (a /context NUM result) back to the model.
func (h *harness) runSlash(line string) {
	h.t.Helper()
	h.typeText(line)
	for _, msg := range runCmd(h.key(tea.KeyEnter)) {
		if msg, ok := msg.(contextSetMsg); ok {
			h.m.Update(msg)
		}
	}
}

// TestContextEndToEnd: a session and the UI over the fake Ollama. With
// /context 256 a chat crosses the limit: the warning is in the chat at the
// turn that crosses it (and only then), the meter shows the cut; /context
// shows the breakdown; /context 8192 makes the warning go away on the
// next turn, and the meter follows.
func TestContextEndToEnd(t *testing.T) {
	h := newHarnessWith(t, 100, 30, noAutoCompact)
	h.srv.SetDefault(ollamatest.TextTurn("ok"))
	if strings.Contains(h.m.statusLine(), "ctx") {
		t.Fatal("meter shown before the first reply")
	}
	h.runSlash("/context 256")
	if !strings.Contains(allText(h.m), "context: 256 tokens from the next message") {
		t.Fatalf("no confirmation of /context 256:\n%s", allText(h.m))
	}
	msg := strings.Repeat("word ", 40) // 44 tokens for the fake
	warnings := func() int {
		return strings.Count(allText(h.m), "context too small") + strings.Count(allText(h.m), "context full")
	}
	for turn := 1; turn <= 6; turn++ {
		h.send(msg)
		want := 0
		if turn == 6 { // the fake's prompt is 49k-5 tokens after k turns: 289 > 256
			want = 1
		}
		if got := warnings(); got != want {
			t.Fatalf("after turn %d: %d warnings, want %d:\n%s", turn, got, want, allText(h.m))
		}
	}
	if !strings.Contains(allText(h.m), "/context NUM") || !strings.Contains(allText(h.m), "the oldest messages") {
		t.Errorf("the warning names neither the fix nor what is lost:\n%s", allText(h.m))
	}
	if line := h.m.statusLine(); !strings.Contains(line, "ctx 257/256 ✂ cut") {
		t.Errorf("status line %q", line)
	}
	h.runSlash("/context")
	for _, want := range []string{"the last reply took 257 of 256 tokens", "set by /context", "tool definitions",
		"history", "last reply", "measured (Ollama): prompt 256 + reply 1 = 257", "did not fit"} {
		if !strings.Contains(allText(h.m), want) {
			t.Errorf("/context lacks %q", want)
		}
	}

	h.runSlash("/context 8192")
	if !strings.Contains(allText(h.m), "context: 8192 tokens from the next message") {
		t.Fatalf("no confirmation of /context 8192")
	}
	h.send(msg)
	if got := warnings(); got != 1 {
		t.Errorf("after /context 8192: %d warnings, want still the one", got)
	}
	if line := h.m.statusLine(); !strings.Contains(line, "/8k") || strings.Contains(line, "cut") {
		t.Errorf("status line after /context 8192: %q", line)
	}
}
