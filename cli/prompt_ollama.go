package cli

import (
	"context"
	"errors"
	"net/url"
	"time"

	"latch/session"
)

// ollamaFirst checks, before -p opens a session and starts the servers
// (an npx server can take seconds), that Ollama answers and, for a new
// session, has the model. Either failing is said at once, in the words a
// turn would say it with, and no session is written: a run that could
// not talk to the model leaves nothing in latch sessions. Any other
// answer lets the run go on, its turn saying what is wrong as before.
func ollamaFirst(ctx context.Context, s *settings, f flags) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	client := ollamaClient(s)
	model := s.model
	if f.resume != "" || f.fork != "" || f.cont {
		model = "" // the log's model, read when the session opens
	}
	var ue *url.Error
	down := errors.As(client.Heartbeat(ctx), &ue)
	if !down && model == "" {
		return nil
	}
	// A session with no log, for its words about Ollama's errors. Probe
	// needs a model's name: with Ollama down, any will do.
	name := model
	if name == "" {
		name = "-"
	}
	probe := session.New(session.Options{Client: client, Raw: ollamaRaw(s), Host: s.host.String(), Model: name})
	defer probe.Close()
	_, err := probe.Probe(ctx)
	if down || (model != "" && errors.Is(err, session.ErrModelNotFound)) {
		return err
	}
	return nil
}
