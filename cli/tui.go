package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"github.com/ollama/ollama/api"
	"golang.org/x/term"

	"latch/config"
	"latch/permissions"
	"latch/session"
	"latch/themes"
	"latch/ui"
)

// ollamaClient builds the API client. There is no overall timeout (replies
// stream for minutes) but connecting is bounded, so an unreachable host is
// reported quickly.
func ollamaClient(s *settings) *api.Client {
	hc := ollamaHTTP()
	hc.Transport = session.ExactToolCalls(hc.Transport) // tool calls' numbers as the model wrote them
	return api.NewClient(s.host, hc)
}

// ollamaRaw reaches the same host for what the api client cannot read
// (session.RawOllama: /api/tags' capabilities on Ollama v0.32).
func ollamaRaw(s *settings) session.RawOllama {
	return session.RawOllama{URL: s.host, HTTP: ollamaHTTP()}
}

func ollamaHTTP() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return &http.Client{Transport: tr}
}

// serverConfigs hands the config file's servers to the connection manager.
// A server still waiting for an ${input:…} value (config/inputs.go) is not one of
// them: it would be started with the placeholder.
func serverConfigs(cs []config.ServerConfig) []session.ServerConfig {
	var out []session.ServerConfig
	for _, c := range cs {
		if len(c.Inputs) > 0 {
			continue
		}
		out = append(out, session.ServerConfig{
			Name: c.Name, Transport: c.Transport, Command: c.Command, Args: c.Args, Env: c.Env, Cwd: c.Cwd,
			InheritAll: c.EnvInheritAll, Inherit: c.EnvInherit,
			URL: c.URL, Headers: c.Headers, Token: c.Token, TokenEnv: c.TokenEnv, TokenFile: c.TokenFile,
			TokenCommand: c.TokenCommand, Timeout: c.Timeout, ConnectTimeout: c.ConnectTimeout, Disabled: c.Disabled,
			Secrets: c.Secrets, Protocol: c.Protocol,
		})
		applyOAuth(c, &out[len(out)-1])
	}
	return out
}

// runTUI runs the interactive program until the user quits, or quit is
// done (a quit signal: see quitRequested); with gw (latch --serve), its
// gateway serves beside it, over its session.
func runTUI(quit context.Context, s *settings, f flags, gw *chatGateway) error {
	// The values VS Code's inputs stand for, asked before anything else
	// reads the terminal.
	values, err := askInputs(quit, os.Stdin, os.Stderr, s.cfg)
	if errors.Is(err, errQuitAtPrompt) {
		return nil
	}
	if err != nil {
		return err
	}
	s.leftOut = s.cfg.FillInputs(values)
	// Ask the terminal for its background before Bubble Tea owns stdin,
	// only when the theme needs it (see termquery.go and earlyinit).
	dark := true
	var typed []byte // keys typed while a query waited, for the screen to read first
	if themes.NeedsBackground(s.theme) {
		dark, typed = queryBackground(os.Stdin, os.Stdout, bgQueryTimeout, s.getenv)
	}
	lipgloss.SetHasDarkBackground(dark)
	configHome := themes.ConfigHome(s.getenv)
	pal, themeNotices, err := themes.FromEnv(s.theme, dark, s.getenv, configHome)
	if err != nil {
		themeNotices = append(themeNotices, fmt.Sprintf("theme: %v (using %s)", err, pal.Name))
	}
	// The config file's notices went to stderr, which the screen covers:
	// they are shown on it too.
	notices := append(slices.Clone(s.cfg.Warnings), themeNotices...)
	profile := lipgloss.ColorProfile()
	syncOutput, typedSync := querySync(os.Stdin, os.Stdout, 500*time.Millisecond)
	typed = append(typed, typedSync...)
	lipgloss.SetColorProfile(themes.RenderProfile(pal, profile))
	env := chatEnv{pal: pal, dark: dark, configHome: configHome, notices: notices, profile: profile, syncOutput: syncOutput,
		typed: typed, late: &lateAnswers{}}
	for {
		from, model, err := runChat(quit, s, f, env, gw)
		if err != nil || from == "" {
			return err
		}
		env.takeLateAnswers(s.theme, s.getenv)
		// /fork: the chat goes on in a new session branched from the one
		// that just closed, with its model.
		f.resume, f.cont, f.fork = "", false, from
		s.model = model
		env.notices, env.typed = nil, nil
	}
}

// chatEnv is what runTUI learnt of the terminal before the first chat.
type chatEnv struct {
	pal        themes.Palette
	dark       bool
	configHome string
	notices    []string
	profile    termenv.Profile
	syncOutput bool
	// typed is what the person typed while latch asked the terminal,
	// before the first chat's screen: its first keys.
	typed []byte
	late  *lateAnswers
}

// takeLateAnswers takes the terminal's answers that came late, in the
// chat that just closed: the next chat (after /fork) draws with
// synchronized output as the terminal said, and starts in the theme its
// background implies, when theme depends on the background.
func (env *chatEnv) takeLateAnswers(theme string, getenv func(string) string) {
	if on, ok := env.late.sync(); ok {
		env.syncOutput = on
	}
	d, ok := env.late.background()
	if !ok || d == env.dark {
		return
	}
	env.dark = d
	if themes.NeedsBackground(theme) {
		if p, _, err := themes.FromEnv(theme, d, getenv, env.configHome); err == nil {
			env.pal = p
		}
	}
}

// lateTold is what the key reader tells the terminal's late answers to:
// each is kept for the chat after /fork (takeLateAnswers) and sent to
// this chat's screen.
func (env *chatEnv) lateTold(send func(tea.Msg)) ui.LateAnswers {
	return ui.LateAnswers{
		Sync: func(on bool) {
			env.late.setSync(on)
			send(ui.SyncOutputMsg(on))
		},
		Background: func(dark bool) {
			env.late.setBackground(dark)
			send(ui.BackgroundMsg(dark))
		},
	}
}

// lateAnswers are the terminal's answers about its background and about
// synchronized output, when they came after latch stopped waiting for
// them: told by the key reader's goroutine, read after the chat ends.
type lateAnswers struct {
	mu               sync.Mutex
	dark, darkCame   bool
	syncOn, syncCame bool
}

func (l *lateAnswers) setBackground(dark bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dark, l.darkCame = dark, true
}

func (l *lateAnswers) background() (dark, came bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.dark, l.darkCame
}

func (l *lateAnswers) setSync(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.syncOn, l.syncCame = on, true
}

func (l *lateAnswers) sync() (on, came bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.syncOn, l.syncCame
}

// runChat runs one session's chat on the screen until the user quits, or
// quit is done. After /fork it returns the session's id and model, for
// the chat to go on in a fork of it. With gw (latch --serve) its gateway
// serves beside it, over its session (and /fork is refused).
func runChat(quit context.Context, s *settings, f flags, env chatEnv, gw *chatGateway) (forkFrom, model string, err error) {
	pal, dark, configHome, notices, profile, syncOutput := env.pal, env.dark, env.configHome, env.notices, env.profile, env.syncOutput
	sess, resumed, err := openSession(s, f, false)
	if err != nil {
		return "", "", err
	}
	sub := sess.Subscribe()
	sess.Start()
	// Servers connect in the background; the screen is up at once.
	sess.StartServers()
	defer func() {
		sess.Close()
		// The screen is gone by now: the line stays on the normal one.
		if line := exitLine(sess.ID(), len(sess.History()) > 0, len(sess.Approvals())); line != "" {
			fmt.Fprintln(os.Stdout, line)
		}
	}()

	m := ui.New(ui.Options{Backend: sess, Events: sub, Styles: themes.Build(pal), Resumed: resumed,
		DarkBackground: dark, Theme: s.theme, Getenv: s.getenv, ConfigHome: configHome, Profile: profile, Notices: notices,
		Output: os.Stdout, SyncOutput: syncOutput, Mouse: s.cfg.Mouse,
		OpenURL:   func(u string) error { return startBrowser(u, s.getenv) },
		KeepModel: func(name string) (string, error) { return saveModel(s.cfg, s.getenv, name) },
		RuleFile:  func() (string, error) { return ruleFile(s.cfg, s.getenv) },
		SaveRule:  func(spec permissions.RuleSpec) (permissions.Rule, error) { return saveRule(s.cfg, s.getenv, spec) },
		Serving:   gw.serving(), Sources: s.cfg.Sources(), Notify: notifyOn(os.Stdout, s.getenv)}) // inbox_cmd.go
	// Bubble Tea's own signal handling is off: it would stop catching
	// signals when the program ends, before the servers are closed. A quit
	// signal ends the program like Ctrl+C, even one that came before it ran.
	// The keys are read through ui.TeaInput, which turns the keys the
	// terminal tells apart into those Bubble Tea knows.
	keys, err := keyboard()
	if err != nil {
		return "", "", err
	}
	if keys != os.Stdin {
		defer func() { _ = keys.Close() }() // the terminal opened for reading: nothing was written
	}
	// The terminal's answer about synchronized output, should it come
	// after querySync gave up waiting (a slow link, a busy machine), turns
	// it on then; its answer about the background, after queryBackground
	// gave up, resolves the theme again (ui.BackgroundMsg); both hold in
	// this chat and in the one after /fork. p is set before Run starts reading the
	// keys.
	var p *tea.Program
	late := env.lateTold(func(msg tea.Msg) { p.Send(msg) })
	input := ui.TeaInput(keys, late)
	if len(env.typed) > 0 && keys == os.Stdin {
		r, stop := newTypedInput(keys, env.typed) // typedahead.go
		defer stop()
		input = ui.TeaInputAfter(r, keys, late)
	}
	opts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithFPS(20), tea.WithInput(input),
		tea.WithOutput(ui.TeaOutput(os.Stdout)), tea.WithoutSignalHandler()}
	if s.cfg.Mouse {
		// Off by default: the terminal's own selection works, and the
		// wheel scrolls only where the terminal turns it into keys.
		opts = append(opts, tea.WithMouseCellMotion())
	}
	p = tea.NewProgram(m, opts...)
	defer context.AfterFunc(quit, p.Quit)()
	if gw != nil {
		// Stopped before the session closes (deferred above).
		ctx, stop := context.WithCancel(quit)
		defer gw.wait()
		defer stop()
		gw.start(ctx, s, sess, resumed != nil, p.Send)
	}
	final, err := p.Run()
	if fm, ok := final.(*ui.Model); ok && err == nil && fm.Forking() {
		return sess.ID(), sess.Model(), nil
	}
	return "", "", err
}

// keyboard is the terminal the keys are read from: stdin, or when stdin is
// not a terminal (input piped in) the terminal itself, as Bubble Tea
// chooses when it is given no input.
func keyboard() (*os.File, error) {
	if term.IsTerminal(int(os.Stdin.Fd())) {
		return os.Stdin, nil
	}
	f, err := os.OpenFile(ttyName, os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("no terminal to read keys from: %w", err)
	}
	return f, nil
}
