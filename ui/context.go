package ui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// The context budget on screen: the meter in the status line and /context
// (session/context.go keeps the figures).

// ctxMeter is the status line's context meter: the tokens the last reply
// took (its prompt and its own) of the num_ctx in effect, e.g.
// "ctx 1.2k/4k", coloured as it fills; "" before the first reply.
func ctxMeter(st *themes.Styles, c session.ContextInfo) string {
	if c.Used() == 0 && c.Regained > 0 {
		return compactedMeter(st, c) // compact.go
	}
	if c.Used() == 0 {
		return ""
	}
	text := "ctx " + kTokens(c.Used())
	if c.NumCtx > 0 {
		text += "/" + kTokens(c.NumCtx)
	}
	if c.Truncated {
		text += " ✂ cut"
	}
	return ctxStyle(st, c).Render(text)
}

// ctxLevel is how full the context is: 0 under 70%, 1 up to 90%, 2 over
// 90% or when the last prompt was cut.
func ctxLevel(c session.ContextInfo) int {
	switch {
	case c.Truncated:
		return 2
	case c.NumCtx <= 0:
		return 0
	case c.Used()*100 > c.NumCtx*90:
		return 2
	case c.Used()*100 >= c.NumCtx*70:
		return 1
	}
	return 0
}

func ctxStyle(st *themes.Styles, c session.ContextInfo) lipgloss.Style {
	switch ctxLevel(c) {
	case 1:
		return st.Status.Busy
	case 2:
		return st.Status.Failure
	}
	return st.Status.Item
}

// kTokens writes a token count short: as it is under 1000, else in k of
// 1024 (context sizes are powers of two: 4096 is "4k"), with one decimal
// under 10k.
func kTokens(n int) string { return session.ShortTokens(n) }

// contextSetMsg reports the end of /context NUM.
type contextSetMsg struct {
	change session.NumCtxChange
	err    error
}

// cmdContext shows the context budget (no argument), or sets num_ctx for
// the session: /context NUM (8192, or 8k), /context default.
func (m *Model) cmdContext(args []string) tea.Cmd {
	switch len(args) {
	case 0:
		m.addNotice(contextReport(m.models.Context()))
		return nil
	case 1:
		n, ok := parseNumCtx(args[0])
		if !ok {
			m.addError("usage: /context [NUM|default]: NUM is the context in tokens, e.g. 8192 or 8k")
			return nil
		}
		b := m.models
		return func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			ch, err := b.SetNumCtx(ctx, n)
			return contextSetMsg{change: ch, err: err}
		}
	}
	m.badArgs("context")
	return nil
}

// parseNumCtx reads /context's argument: a number of tokens ("8192",
// "8k" = 8192), or "default" (0: drop the session's setting).
func parseNumCtx(s string) (int, bool) {
	s = strings.ToLower(s)
	if s == "default" {
		return 0, true
	}
	mult := 1
	if rest, ok := strings.CutSuffix(s, "k"); ok {
		s, mult = rest, 1024
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 || n > 1<<24/mult {
		return 0, false
	}
	return n * mult, true
}

func (m *Model) handleContextSet(msg contextSetMsg) {
	ch := msg.change
	switch {
	case msg.err != nil:
		m.addError("/context: " + userMessage(msg.err))
		return
	case ch.NumCtx == 0:
		c := m.models.Context()
		now := "Ollama's default"
		if c.Source == session.CtxFromConfig {
			now = fmt.Sprintf("%d (ollama.options.num_ctx)", c.NumCtx)
		}
		m.addNotice("context: the session's setting is dropped; from the next message: " + now)
	case ch.Capped:
		m.addNotice(fmt.Sprintf("context: %d tokens from the next message — capped: %s is trained for at most %d, not %d",
			ch.NumCtx, m.models.Model(), ch.Trained, ch.Asked))
	default:
		m.addNotice(fmt.Sprintf("context: %d tokens from the next message (sent as num_ctx; Ollama reloads the model with it, and a larger context takes more memory)", ch.NumCtx))
	}
	m.dirty = true
}

// ctxSourceText says where the num_ctx in effect comes from.
func ctxSourceText(src string) string {
	switch src {
	case session.CtxFromSession:
		return "set by /context"
	case session.CtxFromConfig:
		return "ollama.options.num_ctx in the config"
	case session.CtxFromServer:
		return "Ollama's default for the loaded model: no num_ctx is set"
	}
	return "not known until the first reply"
}

// contextReport is /context's breakdown: the context in effect, the
// estimate of each part, and Ollama's count of the last reply.
func contextReport(c session.ContextInfo) string {
	var b strings.Builder
	switch {
	case c.Used() > 0 && c.NumCtx > 0:
		fmt.Fprintf(&b, "Context: the last reply took %d of %d tokens (%d%%)\n", c.Used(), c.NumCtx, c.Used()*100/c.NumCtx)
	case c.Used() > 0:
		fmt.Fprintf(&b, "Context: the last reply took %d tokens\n", c.Used())
	default:
		b.WriteString("Context: no reply yet\n")
	}
	num := "unknown"
	if c.NumCtx > 0 {
		num = strconv.Itoa(c.NumCtx)
	}
	fmt.Fprintf(&b, "  num_ctx           %s (%s)\n", num, ctxSourceText(c.Source))
	if c.Trained > 0 {
		fmt.Fprintf(&b, "  trained maximum   %d\n", c.Trained)
	}
	b.WriteString("  estimated (bytes/4, a rough guide):\n")
	for _, p := range []struct {
		name string
		n    int
	}{{"system", c.Est.System}, {"tool definitions", c.Est.Tools}, {"history", c.Est.History}, {"last reply", c.Est.LastReply}} {
		fmt.Fprintf(&b, "    %-16s %6d\n", p.name, p.n)
	}
	fmt.Fprintf(&b, "    %-16s %6d\n", "total", c.Est.Total())
	for _, in := range c.Instructions {
		what := sanitize.Line(in.Name) // a file's name or path: one line on the screen
		if in.Path != "" {
			what += " (" + sanitize.Line(in.Path) + ")"
		}
		fmt.Fprintf(&b, "  instructions: %s, %d tokens (part of system)\n", what, in.Tokens)
	}
	if c.Used() > 0 {
		fmt.Fprintf(&b, "  measured (Ollama): prompt %d + reply %d = %d\n", c.Prompt, c.Eval, c.Used())
	}
	if c.Compacted > 0 {
		fmt.Fprintf(&b, "  compacted: the first %d messages are a summary of %d tokens for the model (part of history; /uncompact)\n",
			c.Compacted, c.Summary)
	}
	if c.Truncated {
		b.WriteString("  ✂ the last prompt did not fit: Ollama cut it without a word\n")
	}
	b.WriteString("/context NUM sets num_ctx for this session (at most the trained maximum), /context default drops it; " +
		"or set ollama.options.num_ctx in the config")
	return b.String()
}
