package inbox

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"latch/session"
)

// Call is a call waiting for a person, as the inbox lists it.
type Call struct {
	session.ParkedCall
	// Stopped: the gateway that parked it does not run now, so it cannot
	// be decided until it is started again.
	Stopped bool
}

// Chat says whether the call was parked by a chat's own model (decided in
// that chat), not by a gateway's client.
func (c Call) Chat() bool { return c.Client == "" }

// Source gives the calls waiting now, oldest first. It is the inbox's
// only way to the state folder: Watch reads the session logs; latch
// inbox gives it one on the index of parked calls (parkindex.Live), and
// Watch when the index cannot be used. A Model calls its Source from one
// read at a time, but each read in a goroutine of its own.
type Source func() ([]Call, error)

// Watch is the Source of the state folder dir: each call reads again
// only the session logs whose size or modification time changed since the
// last (one stat each), and asks each session with waiting calls whether
// its gateway runs.
func Watch(dir string) Source {
	w := &watcher{dir: dir, logs: map[string]watchedLog{}}
	return w.read
}

// watcher is Watch's memory: what each session log held when last read.
// Reads take turns, should two screens share one Watch.
type watcher struct {
	mu   sync.Mutex
	dir  string
	logs map[string]watchedLog
}

// watchedLog is one session log as last read.
type watchedLog struct {
	size    int64
	mod     time.Time
	waiting []session.ParkedCall
}

// read is the Source.
func (w *watcher) read() ([]Call, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	paths, err := filepath.Glob(filepath.Join(w.dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
		fi, err := os.Stat(p)
		if !session.ValidID(id) || err != nil {
			continue
		}
		seen[id] = true
		if old, ok := w.logs[id]; ok && old.size == fi.Size() && old.mod.Equal(fi.ModTime()) {
			continue
		}
		calls, err := session.ParkedCallsOf(w.dir, id)
		if err != nil {
			continue // being removed, or unreadable: nothing to decide
		}
		l := watchedLog{size: fi.Size(), mod: fi.ModTime()}
		for _, c := range calls {
			if c.Waiting() {
				c.Result = session.LoggedResult{}
				l.waiting = append(l.waiting, c)
			}
		}
		w.logs[id] = l
	}
	var out []Call
	for id, l := range w.logs {
		if !seen[id] {
			delete(w.logs, id)
			continue
		}
		stopped := len(l.waiting) > 0 && !session.Running(w.dir, id)
		for _, c := range l.waiting {
			out = append(out, Call{ParkedCall: c, Stopped: stopped && c.Client != ""})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Parked.Equal(out[j].Parked) {
			return out[i].Parked.Before(out[j].Parked)
		}
		return out[i].CallID < out[j].CallID
	})
	return out, nil
}
