package permissions

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ids(aps []Approval) []string {
	var out []string
	for _, ap := range aps {
		out = append(out, ap.ID)
	}
	return out
}

func TestParkAndResolveOnce(t *testing.T) {
	t.Parallel()
	a := NewApprovals()
	first := a.Park(Approval{CallID: "c1", Server: "fs", Tool: "write_file", Name: "fs__write_file", Turn: 1, Created: t0})
	second := a.Park(Approval{CallID: "c2", Created: t0.Add(time.Second)})
	if first.ID != "a1" || second.ID != "a2" {
		t.Fatalf("ids = %q, %q; want a1, a2", first.ID, second.ID)
	}
	if got, ok := a.Get("a1"); !ok || got.CallID != "c1" || got.Tool != "write_file" {
		t.Errorf("Get(a1) = %+v, %v", got, ok)
	}
	if got := ids(a.Pending()); !slices.Equal(got, []string{"a1", "a2"}) {
		t.Errorf("Pending = %v", got)
	}

	got, err := a.Resolve("a1")
	if err != nil || got.CallID != "c1" {
		t.Fatalf("Resolve(a1) = %+v, %v", got, err)
	}
	if _, err := a.Resolve("a1"); !errors.Is(err, ErrAlreadyResolved) {
		t.Errorf("second Resolve(a1) = %v, want ErrAlreadyResolved", err)
	}
	if _, err := a.Resolve("a9"); !errors.Is(err, ErrUnknownApproval) {
		t.Errorf("Resolve(a9) = %v, want ErrUnknownApproval", err)
	}
	if _, ok := a.Get("a1"); ok {
		t.Error("a resolved approval is still there")
	}
	if got := ids(a.Pending()); !slices.Equal(got, []string{"a2"}) {
		t.Errorf("Pending = %v", got)
	}
	// Resolved ids are never handed out again.
	if next := a.Park(Approval{}); next.ID != "a3" {
		t.Errorf("next id = %q, want a3", next.ID)
	}
}

func TestParkGivenIDs(t *testing.T) {
	t.Parallel()
	a := NewApprovals()
	if got := a.Park(Approval{ID: "a7"}).ID; got != "a7" {
		t.Errorf("given id = %q", got)
	}
	if got := a.Park(Approval{}).ID; got != "a8" {
		t.Errorf("after a7: %q, want a8", got)
	}
	// An id in use, pending or resolved, is replaced.
	if got := a.Park(Approval{ID: "a7"}).ID; got != "a9" {
		t.Errorf("duplicate pending id became %q, want a9", got)
	}
	if _, err := a.Resolve("a8"); err != nil {
		t.Fatal(err)
	}
	if got := a.Park(Approval{ID: "a8"}).ID; got != "a10" {
		t.Errorf("resolved id reused as %q, want a10", got)
	}
	// Ids not of the aN form are kept but do not move the counter.
	if got := a.Park(Approval{ID: "x"}).ID; got != "x" {
		t.Errorf("id x became %q", got)
	}
	if got := a.Park(Approval{ID: "a99999999999999999999"}).ID; got != "a99999999999999999999" {
		t.Errorf("huge id became %q", got)
	}
	if got := a.Park(Approval{}).ID; got != "a11" {
		t.Errorf("next = %q, want a11", got)
	}
}

func TestRestore(t *testing.T) {
	t.Parallel()
	// Before the restart.
	before := NewApprovals()
	for i := range 4 {
		before.Park(Approval{CallID: fmt.Sprint("c", i), Created: t0.Add(time.Duration(i) * time.Minute),
			Arguments: map[string]any{"path": "/data/x", "n": float64(i)}})
	}
	if _, err := before.Resolve("a2"); err != nil {
		t.Fatal(err)
	}
	if _, err := before.Resolve("a4"); err != nil {
		t.Fatal(err)
	}
	// The session log holds JSON.
	b, err := json.Marshal(before.Pending())
	if err != nil {
		t.Fatal(err)
	}
	var logged []Approval
	if err := json.Unmarshal(b, &logged); err != nil {
		t.Fatal(err)
	}
	if logged[0].ID != "a1" || logged[1].Arguments["path"] != "/data/x" {
		t.Fatalf("JSON round trip = %+v", logged)
	}

	// After the restart: pending in reverse order, resolved ids known.
	after := NewApprovals()
	after.Restore([]Approval{logged[1], logged[0], logged[0]})
	after.RestoreResolved([]string{"a2", "a4", ""})
	if got := ids(after.Pending()); !slices.Equal(got, []string{"a1", "a3"}) {
		t.Errorf("Pending = %v, want oldest first", got)
	}
	if _, err := after.Resolve("a4"); !errors.Is(err, ErrAlreadyResolved) {
		t.Errorf("Resolve(a4) after restart = %v", err)
	}
	if next := after.Park(Approval{Created: t0.Add(time.Hour)}); next.ID != "a5" {
		t.Errorf("next id = %q, want a5 (after the highest restored)", next.ID)
	}
	if ap, err := after.Resolve("a3"); err != nil || ap.CallID != "c2" {
		t.Errorf("Resolve(a3) = %+v, %v", ap, err)
	}
	if _, err := after.Resolve("a3"); !errors.Is(err, ErrAlreadyResolved) {
		t.Errorf("Resolve(a3) twice = %v", err)
	}
	// A resolved id restored later is no longer pending.
	after.RestoreResolved([]string{"a1"})
	if got := ids(after.Pending()); !slices.Equal(got, []string{"a5"}) {
		t.Errorf("Pending = %v", got)
	}
	// Restoring a resolved id does not bring it back.
	after.Restore([]Approval{{ID: "a1"}, {Created: t0.Add(2 * time.Hour)}})
	if got := ids(after.Pending()); !slices.Equal(got, []string{"a5", "a6"}) {
		t.Errorf("Pending = %v", got)
	}
}

func TestRestoreContinuesAfterHighest(t *testing.T) {
	t.Parallel()
	a := NewApprovals()
	a.Restore([]Approval{{ID: "a12"}, {ID: "a3"}})
	if got := a.Park(Approval{}).ID; got != "a13" {
		t.Errorf("next = %q, want a13", got)
	}
	var zero Approvals
	zero.RestoreResolved([]string{"a41"})
	if got := zero.Park(Approval{}).ID; got != "a42" {
		t.Errorf("zero value next = %q, want a42", got)
	}
}

// TestResolveExactlyOnceConcurrently: many deciders, one winner per approval.
func TestResolveExactlyOnceConcurrently(t *testing.T) {
	t.Parallel()
	a := NewApprovals()
	for range 20 {
		a.Park(Approval{})
	}
	var mu sync.Mutex
	wins := map[string]int{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := 1; i <= 20; i++ {
				id := fmt.Sprint("a", i)
				if _, err := a.Resolve(id); err == nil {
					mu.Lock()
					wins[id]++
					mu.Unlock()
				} else if !errors.Is(err, ErrAlreadyResolved) {
					t.Errorf("Resolve(%s) = %v", id, err)
				}
				a.Pending()
				a.Get(id)
			}
		})
	}
	wg.Wait()
	if len(wins) != 20 {
		t.Errorf("%d approvals resolved, want 20", len(wins))
	}
	for id, n := range wins {
		if n != 1 {
			t.Errorf("%s resolved %d times", id, n)
		}
	}
}
