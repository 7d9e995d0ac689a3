package gateway

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
)

// Answers written by many calls at once reach the client each whole and,
// per writer, in the order written, however the writes are batched.
func TestLineWriterKeepsAnswersWholeAndInOrder(t *testing.T) {
	r, w := io.Pipe()
	l := newLineWriter(w)
	const writers, each = 16, 200
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				if _, err := fmt.Fprintf(l, "{\"writer\":%d,\"n\":%d,\"pad\":\"%0200d\"}\n", i, j, 0); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); _, _ = l.Write([]byte("end\n")); close(done) }()
	next := make([]int, writers)
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "end\n" {
			break
		}
		var i, j int
		var pad string
		if _, err := fmt.Sscanf(line, "{\"writer\":%d,\"n\":%d,\"pad\":%s\n", &i, &j, &pad); err != nil || len(pad) != 203 {
			t.Fatalf("a torn answer: %q (%v)", line, err)
		}
		if j != next[i] {
			t.Fatalf("writer %d: answer %d came where %d was due", i, j, next[i])
		}
		next[i]++
	}
	<-done
	for i, n := range next {
		if n != each {
			t.Fatalf("writer %d: %d answers of %d", i, n, each)
		}
	}
}

// Once the client's stdout fails, every later answer's write fails with
// its error, rather than being queued for nothing.
func TestLineWriterFailsOnceTheClientIsGone(t *testing.T) {
	r, w := io.Pipe()
	l := newLineWriter(w)
	gone := errors.New("gone")
	_ = r.CloseWithError(gone)
	if _, err := l.Write([]byte("a\n")); !errors.Is(err, gone) {
		t.Fatalf("first write: %v, want %v", err, gone)
	}
	if _, err := l.Write([]byte("b\n")); !errors.Is(err, gone) {
		t.Fatalf("later write: %v, want %v", err, gone)
	}
}
