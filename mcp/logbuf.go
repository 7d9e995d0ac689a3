package mcp

import "sync"

// logLines is how many lines of a server's log are kept.
const logLines = 500

// maxLogLine is the most bytes of a log notification's text kept (a
// stderr line is cut the same way).
const maxLogLine = 2000

// logBuf is a bounded, goroutine-safe ring of log lines.
type logBuf struct {
	mu    sync.Mutex
	lines []string
	start int
}

func (l *logBuf) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) < logLines {
		l.lines = append(l.lines, line)
		return
	}
	l.lines[l.start] = line
	l.start = (l.start + 1) % logLines
}

// tail returns the last n lines, oldest first (all when n <= 0).
func (l *logBuf) tail(n int) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	all := make([]string, 0, len(l.lines))
	all = append(all, l.lines[l.start:]...)
	all = append(all, l.lines[:l.start]...)
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}
