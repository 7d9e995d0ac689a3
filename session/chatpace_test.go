package session

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"
)

// countingReader hands out one byte a read and counts the reads.
type countingReader struct{ reads int }

func (c *countingReader) Read(b []byte) (int, error) {
	c.reads++
	b[0] = 'x'
	return 1, nil
}

// A stream read while the person gives up (Esc) is not held by the
// pace: the wait for the next read ends with the turn's context, at once.
func TestPacedReadEndsWithTheTurn(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	r := &pacedReader{ctx: ctx, r: &countingReader{}, every: time.Hour}
	b := make([]byte, 1)
	if n, err := r.Read(b); n != 1 || err != nil {
		t.Fatalf("the first read is held back: %d, %v", n, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.Read(b)
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the read waiting for its turn ended with %v, want the turn's cancellation", err)
	}
}

// Reads come no more often than the pace: a body that always has data
// is read once per interval, not once per line.
func TestPacedReadsAreSpacedOut(t *testing.T) {
	t.Parallel()
	src := &countingReader{}
	every := 20 * time.Millisecond
	r := &pacedReader{ctx: context.Background(), r: src, every: every}
	start := time.Now()
	if _, err := io.CopyN(io.Discard, r, 5); err != nil {
		t.Fatal(err)
	}
	// Five reads: the first at once, four after a full interval each.
	if took := time.Since(start); took < 4*every {
		t.Errorf("5 reads took %v, want at least 4 intervals of %v", took, every)
	}
	if src.reads != 5 {
		t.Errorf("%d reads of the body, want 5", src.reads)
	}
}
