package gateway

import (
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"latch/session"
)

// taskTable holds the tasks whose call did not park: their outcome is
// final at once and the session keeps none of it. A parked call's task
// is read from the session. What it holds is bounded by count and by
// bytes (Limits.TaskResults, Limits.TaskResultBytes): past either, the
// oldest results are dropped first, and a client asking for one is told
// which limit dropped it.
type taskTable struct {
	max      int
	maxBytes int64

	mu    sync.Mutex
	done  map[string]doneTask
	order []string // the ids of done, oldest first
	bytes int64    // the sizes of done, summed
	// gone are the ids dropped for room, the latest maxGone, so that
	// their clients are told why.
	gone ring
}

// doneTask is the outcome of a task-augmented call that did not park.
type doneTask struct {
	out     session.GatewayOutcome
	created time.Time
	size    int64
}

// maxGone is how many ids of dropped tasks, and of ended sessions, are
// remembered, to tell their clients why.
const maxGone = 4096

func newTaskTable(l Limits) taskTable {
	return taskTable{max: l.TaskResults, maxBytes: l.TaskResultBytes}
}

// put keeps a done task for keepDone, dropping those kept longer, then
// the oldest while more than max are kept or their bytes pass maxBytes.
// What is kept is what tasks/result sends: the result's content parts and
// structured content, not the text latch's own model would read.
func (tt *taskTable) put(out session.GatewayOutcome, now time.Time) {
	if out.Result != nil {
		r := *out.Result
		r.Text, r.Resources = "", nil
		out.Result = &r
	}
	d := doneTask{out: out, created: now, size: outcomeSize(out)}
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.done == nil {
		tt.done = map[string]doneTask{}
	}
	tt.done[out.ID] = d
	tt.order = append(tt.order, out.ID)
	tt.bytes += d.size
	for len(tt.order) > 0 {
		old, ok := tt.done[tt.order[0]]
		switch {
		case !ok:
		case now.Sub(old.created) > keepDone:
			tt.drop(tt.order[0], false)
		case len(tt.done) > tt.max || tt.bytes > tt.maxBytes:
			tt.drop(tt.order[0], true)
		default:
			return
		}
		tt.order[0] = ""
		tt.order = tt.order[1:]
	}
}

// drop forgets a done task, remembering its id when it went for room.
// The caller holds tt.mu.
func (tt *taskTable) drop(id string, forRoom bool) {
	tt.bytes -= tt.done[id].size
	delete(tt.done, id)
	if !forRoom {
		return
	}
	tt.gone.put(id, "dropped")
}

// get is a done task, if kept.
func (tt *taskTable) get(id string) (doneTask, bool) {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	d, ok := tt.done[id]
	return d, ok && time.Since(d.created) <= keepDone
}

// dropped says why the task id is no longer kept, when it was dropped for
// room; "" otherwise.
func (tt *taskTable) dropped(id string) string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	if tt.gone.get(id) == "" {
		return ""
	}
	return fmt.Sprintf("the result of task %s is no longer kept: latch serve keeps the results of at most %d tasks "+
		"and %d bytes of them (serve.task_results_max, serve.task_results_max_bytes), the oldest dropped first; "+
		"fetch a task's result soon after it completes, or call the tool again", id, tt.max, tt.maxBytes)
}

// outcomeSize is the bytes a done task's outcome holds: its result's
// content parts and structured content as JSON, and its messages.
func outcomeSize(out session.GatewayOutcome) int64 {
	n := len(out.ID) + len(out.Reason) + len(out.Error)
	if r := out.Result; r != nil {
		b, _ := json.Marshal(r.Content)
		n += len(b)
		if r.Structured != nil {
			b, _ = json.Marshal(r.Structured)
			n += len(b)
		}
	}
	return int64(n)
}
