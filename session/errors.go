package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/ollama/ollama/api"
)

// Sentinel errors of the session.
var (
	// ErrBusy is returned by Send while a turn is running.
	ErrBusy = errors.New("a reply is still streaming (Esc cancels it)")
	// ErrNoModel is returned by Send before a model was chosen.
	ErrNoModel = errors.New("no model selected: choose one with /model NAME (/models lists them)")
	// ErrCutOff means the stream ended without Ollama's final line.
	ErrCutOff = errors.New("the reply was cut off: the connection to Ollama closed before the end")
	// ErrModelNotFound means Ollama has no model by the name asked for
	// (its own "model 'x' not found"); errors.Is finds it in a UserError.
	ErrModelNotFound = errors.New("model not found")
	// errNoServers is returned by server commands when none is configured.
	errNoServers = errors.New("no MCP servers are configured (add them under mcpServers in the config file)")
)

// describe turns an error from the Ollama client into the one line the user
// reads: what happened, and what to do about it.
func (s *Session) describe(err error, model string) string {
	var se api.StatusError
	var ae api.AuthorizationError
	var ue *url.Error
	switch {
	case errors.Is(err, ErrCutOff):
		return err.Error()
	case errors.As(err, &ae):
		return fmt.Sprintf("Ollama at %s refused the request (%d): sign in or check the host", s.host, ae.StatusCode)
	case errors.As(err, &se):
		msg := strings.TrimSpace(se.ErrorMessage)
		if msg == "" {
			msg = strings.TrimSpace(se.Status)
		}
		if modelMissing(err, model) {
			return fmt.Sprintf("model %q not found on %s: pull it with `ollama pull %s`", model, s.host, model)
		}
		return fmt.Sprintf("Ollama error (%d): %s", se.StatusCode, msg)
	case errors.As(err, &ue) && isUnreachable(ue.Err):
		return fmt.Sprintf("cannot reach Ollama at %s (%s): is it running? Start it with `ollama serve`, or point OLLAMA_HOST / --host at it", s.host, unreachableWhy(ue.Err))
	case errors.As(err, &ue):
		return fmt.Sprintf("talking to Ollama at %s failed: %v", s.host, ue.Err)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("Ollama at %s did not answer in time", s.host)
	}
	return "Ollama stopped the reply: " + err.Error()
}

// modelMissing reports whether err is Ollama saying it has no model by
// that name. Only its own "model 'x' not found" means that: a router 404
// ("404 page not found") is a wrong host or path.
func modelMissing(err error, model string) bool {
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || model == "" {
		return false
	}
	msg := strings.TrimSpace(se.ErrorMessage)
	return strings.HasPrefix(msg, "model ") && strings.Contains(msg, "not found")
}

// unreachableWhy is the few words of why a connection failed: the
// system's own ("connection refused", "connection reset by peer", "too
// many open files"), "no such host", or "timed out". They tell a host
// with nothing listening from one that went away mid-way or a machine out
// of descriptors.
func unreachableWhy(err error) string {
	var errno syscall.Errno
	var dns *net.DNSError
	var ne net.Error
	switch {
	case errors.As(err, &errno):
		return errno.Error()
	case errors.As(err, &dns):
		return dns.Err
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	return err.Error()
}

func isUnreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &op) || errors.As(err, &dns)
}
