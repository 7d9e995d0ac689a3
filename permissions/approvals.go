package permissions

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Approval is a parked call waiting for /approve or /reject. It is a plain
// value so that the session log can persist it and Restore it after a restart.
type Approval struct {
	// ID is short and human-typable ("a1", "a2", ...), unique per Approvals.
	ID string `json:"approval_id"`
	// CallID is the model's tool call id.
	CallID string `json:"call_id"`
	// Server is the config name of the server.
	Server string `json:"server"`
	// Tool is the tool's original name on the server.
	Tool string `json:"tool"`
	// Name is the model-facing namespaced name.
	Name string `json:"name"`
	// Arguments are the call's arguments. They are shared, not copied: treat
	// them as read-only.
	Arguments map[string]any `json:"arguments"`
	// Turn is the turn the call was made in.
	Turn int `json:"turn"`
	// Created is when the call was parked.
	Created time.Time `json:"created"`
}

// Errors of Approvals.Resolve.
var (
	// ErrUnknownApproval: no approval with that id was ever parked here.
	ErrUnknownApproval = errors.New("no such approval")
	// ErrAlreadyResolved: the approval was approved or rejected before.
	ErrAlreadyResolved = errors.New("already resolved")
)

// approvalPrefix starts every generated approval id.
const approvalPrefix = "a"

// Approvals holds the parked calls of a session. It is safe for concurrent
// use; the zero value is empty and ready to use. Finding an approval by id
// costs the same however many are parked.
type Approvals struct {
	mu       sync.Mutex
	pending  map[string]parked   // by id
	seq      int                 // how many were parked or restored: the next one's order
	resolved map[string]struct{} // ids resolved here or restored as resolved
	last     int                 // highest N of an "aN" id seen; the next is last+1
}

// parked is a pending approval and the order it was parked or restored in.
type parked struct {
	Approval
	seq int
}

// NewApprovals returns an empty set of parked approvals.
func NewApprovals() *Approvals {
	return &Approvals{}
}

// Park adds ap to the pending approvals and returns it with its ID. An empty
// ID gets the next "aN"; so does an ID already in use (pending or resolved),
// because a decision must apply to one call only.
func (a *Approvals) Park(ap Approval) Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ap.ID == "" || a.inUse(ap.ID) {
		ap.ID = a.nextID()
	}
	a.add(ap)
	return ap
}

// Restore adds approvals that were pending before a restart, as read back from
// the session log. An approval whose ID is already in use is skipped; one
// without an ID gets a fresh one. New ids continue after the highest restored.
func (a *Approvals) Restore(aps []Approval) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ap := range aps {
		if ap.ID != "" && a.inUse(ap.ID) {
			continue
		}
		if ap.ID == "" {
			ap.ID = a.nextID()
		}
		a.add(ap)
	}
}

// RestoreResolved records the ids of approvals that were resolved before a
// restart: they are no longer pending, Resolve reports them as already
// resolved, and new ids continue after them.
func (a *Approvals) RestoreResolved(ids []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		if id == "" {
			continue
		}
		delete(a.pending, id)
		a.markResolved(id)
	}
}

// Pending returns the pending approvals, oldest first (by Created, then in the
// order they were parked).
func (a *Approvals) Pending() []Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	list := make([]parked, 0, len(a.pending))
	for _, p := range a.pending {
		list = append(list, p)
	}
	slices.SortFunc(list, func(x, y parked) int {
		if c := x.Created.Compare(y.Created); c != 0 {
			return c
		}
		return x.seq - y.seq
	})
	out := make([]Approval, len(list))
	for i, p := range list {
		out[i] = p.Approval
	}
	return out
}

// Count is how many approvals are pending: Pending's length, without
// the list.
func (a *Approvals) Count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.pending)
}

// Get returns the pending approval with the given id.
func (a *Approvals) Get(id string) (Approval, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.pending[id]
	return p.Approval, ok
}

// Resolve removes the pending approval with the given id and returns it. It
// fails with ErrAlreadyResolved or ErrUnknownApproval otherwise, so an approve
// or reject applies exactly once.
func (a *Approvals) Resolve(id string) (Approval, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	p, ok := a.pending[id]
	if !ok {
		if _, done := a.resolved[id]; done {
			return Approval{}, fmt.Errorf("approval %s: %w", id, ErrAlreadyResolved)
		}
		return Approval{}, fmt.Errorf("approval %q: %w", id, ErrUnknownApproval)
	}
	delete(a.pending, id)
	a.markResolved(id)
	return p.Approval, nil
}

// add makes ap pending, after every approval parked before it. The caller
// holds a.mu.
func (a *Approvals) add(ap Approval) {
	if a.pending == nil {
		a.pending = make(map[string]parked)
	}
	a.see(ap.ID)
	a.pending[ap.ID] = parked{Approval: ap, seq: a.seq}
	a.seq++
}

// inUse reports whether id is pending or resolved. The caller holds a.mu.
func (a *Approvals) inUse(id string) bool {
	_, done := a.resolved[id]
	_, waiting := a.pending[id]
	return done || waiting
}

// markResolved remembers id as resolved. The caller holds a.mu.
func (a *Approvals) markResolved(id string) {
	if a.resolved == nil {
		a.resolved = make(map[string]struct{})
	}
	a.resolved[id] = struct{}{}
	a.see(id)
}

// nextID returns a fresh "aN" id. The caller holds a.mu.
func (a *Approvals) nextID() string {
	for {
		a.last++
		id := approvalPrefix + strconv.Itoa(a.last)
		if !a.inUse(id) {
			return id
		}
	}
}

// see raises the id counter past id if id has the "aN" form. N is capped at
// 30 bits so that the counter cannot overflow. The caller holds a.mu.
func (a *Approvals) see(id string) {
	digits, ok := strings.CutPrefix(id, approvalPrefix)
	if !ok {
		return
	}
	if n, err := strconv.ParseUint(digits, 10, 30); err == nil {
		a.last = max(a.last, int(n))
	}
}
