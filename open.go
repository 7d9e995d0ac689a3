package main

import (
	"fmt"

	"latch/session"
)

// openSession makes the session the flags ask for: a new one, or a resumed
// one (--continue, --resume ID). Both log to the state directory.
func openSession(s *settings, f flags, nonInteractive bool) (*session.Session, *session.Resumed, error) {
	o := session.Options{
		Client: ollamaClient(s), Host: s.host.String(), Model: s.model,
		Think: s.cfg.Ollama.Think, KeepAlive: s.keepAlive, Options: s.cfg.Ollama.Options,
		Servers: serverConfigs(s.cfg.Servers), Policy: s.policy(), NonInteractive: nonInteractive,
		LogDir: s.stateDir, Getenv: s.getenv, ModeFromFlag: f.mode != "",
		GrantsFile:      session.GrantsFile(s.getenv),
		NoTextToolCalls: !s.cfg.Ollama.TextToolCallsOn(),
	}
	id := f.resume
	if f.cont {
		latest, err := session.Latest(s.stateDir)
		if err != nil {
			return nil, nil, fmt.Errorf("--continue: %w", err)
		}
		id = latest
	}
	if id == "" {
		return session.New(o), nil, nil
	}
	return session.Resume(o, s.stateDir, id)
}
