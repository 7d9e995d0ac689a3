package cli

import (
	"fmt"

	"latch/config"
	"latch/session"
)

// sessionOptions are the session's options from the settings (all but
// the Ollama client).
func sessionOptions(s *settings, f flags, nonInteractive bool) session.Options {
	return session.Options{
		Host: s.host.String(), Model: s.model,
		Think: s.cfg.Ollama.Think, ThinkLevel: s.cfg.Ollama.ThinkLevel, Truncate: s.cfg.Ollama.Truncate,
		KeepAlive: s.keepAlive, Options: s.cfg.Ollama.Options,
		Servers: serverConfigs(s.cfg.Servers), Policy: s.policy(), NonInteractive: nonInteractive,
		LogDir: s.stateDir, Getenv: s.getenv, ModeFromFlag: f.mode != "", ModelIsDefault: f.model == "",
		GrantsFile:      session.GrantsFile(s.getenv),
		NoTextToolCalls: !s.cfg.Ollama.TextToolCallsOn(),
		ServerTools:     serverTools(s.cfg.Servers), MaxTools: s.cfg.Ollama.MaxTools,
		EmbedModel: s.cfg.Ollama.EmbedModel, Roots: s.roots,
		CompactAt: s.cfg.Ollama.CompactAt, NoAutoCompact: s.cfg.Ollama.NoCompact,
		AuthDir: authDir(s.getenv), OpenBrowser: browserFor(nonInteractive, s.getenv),
		HistoryFile: historyFile(s, nonInteractive),
		Idempotent:  idempotentServers(s.cfg.Servers),
		Held:        heldCredentials(s),
		RulesNow:    rulesNow(s),
	}
}

// idempotentServers are the servers whose effect is idempotent.
func idempotentServers(cs []config.ServerConfig) []string {
	var out []string
	for _, c := range cs {
		if c.Effect == config.EffectIdempotent {
			out = append(out, c.Name)
		}
	}
	return out
}

// historyFile is the input history's file for the screen; -p types
// nothing into an input, so it has none.
func historyFile(s *settings, nonInteractive bool) string {
	if nonInteractive {
		return ""
	}
	return session.HistoryFile(s.getenv)
}

// serverTools are the servers' config tools lists, by server: only the
// tools listed are offered to the model (a server without one offers all).
func serverTools(cs []config.ServerConfig) map[string][]string {
	out := map[string][]string{}
	for _, c := range cs {
		if c.Tools != nil {
			out[c.Name] = c.Tools
		}
	}
	return out
}

// openSession makes the session the flags ask for: a new one, or a resumed
// one (--continue, --resume ID), or a fork (--fork ID). All log to the state directory.
func openSession(s *settings, f flags, nonInteractive bool) (*session.Session, *session.Resumed, error) {
	o := sessionOptions(s, f, nonInteractive)
	o.Client, o.Raw = ollamaClient(s), ollamaRaw(s)
	ins, err := sessionInstructions(s.cfg, f)
	if err != nil {
		return nil, nil, err
	}
	o.Instructions = ins
	id := f.resume
	if f.cont {
		latest, err := session.Latest(s.stateDir)
		if err != nil {
			return nil, nil, fmt.Errorf("--continue: %w", err)
		}
		id = latest
	}
	if f.fork != "" {
		return session.Fork(o, s.stateDir, f.fork)
	}
	if id == "" {
		return session.New(o), nil, nil
	}
	return session.Resume(o, s.stateDir, id)
}
