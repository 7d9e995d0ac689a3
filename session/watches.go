package session

import (
	"slices"
	"sort"
	"sync"
	"time"
)

// resourceUpdateInterval is the least time between two resource_updated
// events of one server: a server that floods its watched resources'
// updates costs one event an interval.
var resourceUpdateInterval = time.Second

// watches are the resources the person watches this session, by server,
// and their updates waiting to be published. An update is published only
// for a resource watched (its URI exactly as watched); any other is only
// counted. Updates of a watched resource are coalesced (one pending at
// most per resource) and paced per server: one event at most an interval,
// the pending ones oldest first, none lost.
type watches struct {
	mu  sync.Mutex
	srv map[string]*serverWatches
}

// serverWatches are one server's watched resources and pending updates.
type serverWatches struct {
	uris    map[string]bool
	pending []string    // watched resources updated since last published, each once, oldest first
	last    time.Time   // when the last update was published
	timer   *time.Timer // publishes the first pending update; nil when none waits
	ignored int         // updates of resources not watched
}

func (w *watches) server(name string) *serverWatches {
	if w.srv == nil {
		w.srv = map[string]*serverWatches{}
	}
	sw := w.srv[name]
	if sw == nil {
		sw = &serverWatches{uris: map[string]bool{}}
		w.srv[name] = sw
	}
	return sw
}

func (w *watches) set(server, uri string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.server(server)
	if on {
		sw.uris[uri] = true
		return
	}
	delete(sw.uris, uri)
	sw.pending = slices.DeleteFunc(sw.pending, func(p string) bool { return p == uri })
}

func (w *watches) list(server string) []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for u := range w.server(server).uris {
		out = append(out, u)
	}
	sort.Strings(out)
	return out
}

// ignored is how many updates of resources not watched server sent.
func (w *watches) ignored(server string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.server(server).ignored
}

// updated takes a server's notifications/resources/updated for uri:
// publish is called (now, or later on its own goroutine) when it is to be
// published, never for a resource not watched.
func (w *watches) updated(server, uri string, publish func(server, uri string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.server(server)
	switch {
	case !sw.uris[uri]:
		sw.ignored++
	case slices.Contains(sw.pending, uri):
		// coalesced with the one waiting
	case sw.timer == nil && time.Since(sw.last) >= resourceUpdateInterval:
		sw.last = time.Now()
		publish(server, uri)
	default:
		sw.pending = append(sw.pending, uri)
		if sw.timer == nil {
			sw.timer = time.AfterFunc(time.Until(sw.last.Add(resourceUpdateInterval)), func() { w.flush(server, publish) })
		}
	}
}

// flush publishes a server's oldest pending update, and waits an interval
// for the next one while some are pending.
func (w *watches) flush(server string, publish func(server, uri string)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	sw := w.server(server)
	sw.timer = nil
	if len(sw.pending) == 0 {
		return
	}
	uri := sw.pending[0]
	sw.pending = sw.pending[1:]
	sw.last = time.Now()
	publish(server, uri)
	if len(sw.pending) > 0 {
		sw.timer = time.AfterFunc(resourceUpdateInterval, func() { w.flush(server, publish) })
	}
}
