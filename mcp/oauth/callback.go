package oauth

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// callbackPath is the loopback redirect URI's path.
const callbackPath = "/callback"

// callback is the loopback listener of one login: on 127.0.0.1 and a
// random port, it takes exactly one request, a GET of callbackPath
// carrying the expected state, and then closes. Any other path is not
// found. A callback without that state (a stray, or another program on
// the machine guessing) is refused and only counted: the login goes on
// waiting for its own until its time limit. The one with the state is
// the authorization server's answer and ends the login, with the code or
// with its error.
type callback struct {
	redirect string
	srv      *http.Server
	ln       net.Listener

	mu        sync.Mutex
	state     string
	issuer    string
	issNeeded bool
	done      bool
	strays    int // callbacks refused for another state
	result    chan callbackResult
}

type callbackResult struct {
	code string
	err  error
}

// listenCallback starts the listener.
func listenCallback() (*callback, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen for the login's callback: %v", err)
	}
	cb := &callback{ln: ln, result: make(chan callbackResult, 1),
		redirect: fmt.Sprintf("http://127.0.0.1:%d%s", ln.Addr().(*net.TCPAddr).Port, callbackPath)}
	cb.srv = &http.Server{Handler: cb, ReadHeaderTimeout: 10 * time.Second}
	// Each request is answered and its connection closed: requests that
	// keep coming (strays) hold nothing while the login waits.
	cb.srv.SetKeepAlivesEnabled(false)
	go func() { _ = cb.srv.Serve(ln) }()
	return cb, nil
}

// expect sets the state the callback must carry, and the issuer an iss
// parameter must name (RFC 9207; required when the server says it sends
// one).
func (cb *callback) expect(state, issuer string, issNeeded bool) {
	cb.mu.Lock()
	cb.state, cb.issuer, cb.issNeeded = state, issuer, issNeeded
	cb.mu.Unlock()
}

// ServeHTTP takes the one callback.
func (cb *callback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != callbackPath || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	cb.mu.Lock()
	if cb.done {
		cb.mu.Unlock()
		http.Error(w, "This login is over.", http.StatusGone)
		return
	}
	if q := r.URL.Query(); q.Get("state") != cb.state || cb.state == "" {
		cb.strays++
		cb.mu.Unlock()
		http.Error(w, "latch: this is not the login latch is waiting for (the state does not match): refused.", http.StatusBadRequest)
		return
	}
	cb.done = true
	res := cb.check(r)
	cb.mu.Unlock()
	if res.err != nil {
		http.Error(w, "latch: the login failed: "+res.err.Error(), http.StatusBadRequest)
	} else {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprintln(w, "latch: you are logged in. You can close this tab.")
	}
	cb.result <- res
	// Shut down, not closed: Close would cut this very connection before
	// the page above is flushed (the browser would show a reset). Every
	// connection is closed after its answer (no keep-alive), so the
	// shutdown waits for nothing else.
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if cb.srv.Shutdown(ctx) != nil {
			_ = cb.srv.Close()
		}
	}()
}

// check reads the query of the callback with the login's state (cb.mu
// held).
func (cb *callback) check(r *http.Request) callbackResult {
	q := r.URL.Query()
	switch {
	case q.Get("iss") != "" && q.Get("iss") != cb.issuer:
		return callbackResult{err: fmt.Errorf("the callback names issuer %q, not %q: refused", q.Get("iss"), cb.issuer)}
	case q.Get("iss") == "" && cb.issNeeded:
		return callbackResult{err: errors.New("the callback lacks the issuer the server said it sends: refused")}
	case q.Get("error") != "":
		msg := q.Get("error")
		if d := q.Get("error_description"); d != "" {
			msg += ": " + truncate(d, 200)
		}
		return callbackResult{err: errors.New("the authorization server said " + msg)}
	case q.Get("code") == "":
		return callbackResult{err: errors.New("the callback carries no code")}
	}
	return callbackResult{code: q.Get("code")}
}

// wait returns the callback's code, or why there is none.
func (cb *callback) wait(ctx context.Context) (string, error) {
	select {
	case r := <-cb.result:
		return r.code, r.err
	case <-ctx.Done():
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", errors.New("no login within the time allowed" + cb.strayNote())
		}
		return "", errors.New("the login was cancelled")
	}
}

// strayNote says how many callbacks for another login were refused (""
// for none).
func (cb *callback) strayNote() string {
	cb.mu.Lock()
	defer cb.mu.Unlock()
	switch cb.strays {
	case 0:
		return ""
	case 1:
		return " (1 callback for another login was refused)"
	}
	return fmt.Sprintf(" (%d callbacks for another login were refused)", cb.strays)
}

// close stops the listener.
func (cb *callback) close() { _ = cb.srv.Close() }
