package mcp

import (
	"sync"
	"time"
)

// refreshInterval is the least time between two refreshes of one list of
// a server (its tools, its prompts): a storm of list_changed costs at most
// one list request per interval.
var refreshInterval = 200 * time.Millisecond

// coalescer runs one refresh job of a server's connection while it is
// asked for: at most one run in flight and one pending (a request while
// one is pending changes nothing), runs at least refreshInterval apart.
// Asking never blocks: it may come from the transport's read loop.
type coalescer struct {
	mu      sync.Mutex
	running bool // a runner of gen runs
	pending bool // another run is asked for
	gen     int
}

// request asks for a run of job for connection gen. live reports whether
// gen is still the server's connection; job reports whether to try again
// (the connection was not up yet).
func (c *coalescer) request(gen int, live func() bool, job func() (retry bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.pending = true
	if c.running && c.gen == gen {
		return
	}
	c.running, c.gen = true, gen
	go c.run(gen, live, job)
}

// run runs job while runs are asked for, and ends when none is pending or
// the connection is gone.
func (c *coalescer) run(gen int, live func() bool, job func() bool) {
	for {
		alive := live()
		c.mu.Lock()
		if !alive || !c.pending || c.gen != gen {
			if c.gen == gen {
				c.running, c.pending = false, false
			}
			c.mu.Unlock()
			return
		}
		c.pending = false
		c.mu.Unlock()
		next := time.Now().Add(refreshInterval)
		if job() {
			c.mu.Lock()
			c.pending = true
			c.mu.Unlock()
		}
		time.Sleep(time.Until(next))
	}
}
