package sshinbox

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/crypto/ssh"

	"latch/themes"
	"latch/ui/inbox"
	"latch/ui/notice"
	"latch/ui/sanitize"
)

// The bounds of a screen's size: a client may say anything.
const (
	minCols, maxCols = 20, 1000
	minRows, maxRows = 5, 500
)

// bound is a client's size, bounded; 80×24 when it says 0.
func bound(cols, rows uint32) tea.WindowSizeMsg {
	if cols == 0 {
		cols = 80
	}
	if rows == 0 {
		rows = 24
	}
	return tea.WindowSizeMsg{Width: int(min(max(cols, minCols), maxCols)), Height: int(min(max(rows, minRows), maxRows))}
}

// profile is the colours a terminal named term shows. The name is the
// client's: only a few plain patterns are looked at.
func profile(term string) termenv.Profile {
	t := strings.ToLower(term)
	switch {
	case len(t) > 64 || t == "" || t == "dumb":
		return termenv.Ascii
	case strings.Contains(t, "truecolor"), strings.Contains(t, "24bit"), strings.Contains(t, "direct"):
		return termenv.TrueColor
	case strings.Contains(t, "256"):
		return termenv.ANSI256
	}
	return termenv.ANSI
}

// run shows the inbox on ch until the person quits, the connection goes
// or ctx ends, and gives the exit status. A fault in the screen is
// logged and ends this session only: Bubble Tea's own catch would print
// to the process's stdout.
func (s *server) run(ctx context.Context, ch ssh.Channel, pty ptyReq, by string, touch func(), started func(*tea.Program)) (status uint32) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	fault := func(v any, stack []byte) {
		once.Do(func() {
			s.o.Log("inbox_ssh", fmt.Sprintf("inbox over SSH: %s's screen stopped on a fault (that session closed; the gateway serves on): %s", by,
				bounded(sanitize.Line(fmt.Sprint(v)), 300)),
				map[string]any{"by": by, "fault": fmt.Sprint(v), "stack": string(stack)})
			_ = ch.Close()
			cancel()
		})
	}
	defer func() {
		if v := recover(); v != nil {
			fault(v, debug.Stack())
			status = 2
		}
	}()
	r := lipgloss.NewRenderer(ch, termenv.WithProfile(profile(pty.Term)))
	r.SetColorProfile(profile(pty.Term))
	r.SetHasDarkBackground(true)
	o := s.o.Inbox
	o.By = by
	o.Notice = notice.Bell
	var wmu sync.Mutex
	o.Ring = func(seq string) {
		wmu.Lock()
		defer wmu.Unlock()
		_, _ = io.WriteString(ch, seq)
	}
	if s.o.Styles != nil {
		o.Styles = s.o.Styles(r)
	} else {
		pal, _ := themes.Lookup("dark", true)
		st := themes.BuildFor(pal, r)
		o.Styles = &st
	}
	m := &guarded{m: inbox.New(o), fault: fault, first: bound(pty.Cols, pty.Rows)}
	p := tea.NewProgram(m, tea.WithAltScreen(), tea.WithContext(ctx), tea.WithInput(&keys{r: ch, touch: touch}), tea.WithOutput(ch),
		tea.WithoutCatchPanics(), tea.WithoutSignalHandler())
	started(p)
	_, err := p.Run()
	if err != nil && ctx.Err() != nil {
		return 1
	}
	if err != nil {
		return 1
	}
	return 0
}

// keys is the client's input: each read is a sign of life.
type keys struct {
	r     io.Reader
	touch func()
}

func (k *keys) Read(b []byte) (int, error) {
	n, err := k.r.Read(b)
	if n > 0 {
		k.touch()
	}
	return n, err
}

// guarded is the inbox's model with every fault caught: in Init, Update
// and View, and in every command they return (Bubble Tea runs those in
// goroutines of their own).
type guarded struct {
	m     tea.Model
	fault func(v any, stack []byte)
	first tea.WindowSizeMsg
	dead  atomic.Bool // a fault was caught: the screen shows nothing more
}

func (g *guarded) catch() {
	if v := recover(); v != nil {
		g.dead.Store(true)
		g.fault(v, debug.Stack())
	}
}

func (g *guarded) Init() (cmd tea.Cmd) {
	defer g.catch()
	first := g.first
	return g.wrap(tea.Batch(g.m.Init(), func() tea.Msg { return first }))
}

func (g *guarded) Update(msg tea.Msg) (_ tea.Model, cmd tea.Cmd) {
	if g.dead.Load() {
		return g, nil
	}
	defer g.catch()
	next, cmd := g.m.Update(msg)
	g.m = next
	return g, g.wrap(cmd)
}

func (g *guarded) View() (v string) {
	if g.dead.Load() {
		return ""
	}
	defer g.catch()
	return g.m.View()
}

// cmdType is tea.Cmd's type, to find the commands a message carries
// (tea.Batch's and tea.Sequence's).
var cmdType = reflect.TypeOf(tea.Cmd(nil))

// wrap catches a fault in cmd, and in the commands its message carries.
func (g *guarded) wrap(cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if v := recover(); v != nil {
				g.fault(v, debug.Stack())
				msg = nil
			}
		}()
		msg = cmd()
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			for i := range v.Len() {
				if c, _ := v.Index(i).Interface().(tea.Cmd); c != nil {
					v.Index(i).Set(reflect.ValueOf(g.wrap(c)))
				}
			}
		}
		return msg
	}
}
