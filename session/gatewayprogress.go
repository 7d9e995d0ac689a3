package session

import "latch/mcp"

// watchProgress hands fn the progress notifications of the running call
// id (redacted, as every event is), until the returned unwatch.
func (s *Session) watchProgress(id string, fn func(ToolProgress)) (unwatch func()) {
	s.gwProgress.Store(id, fn)
	return func() { s.gwProgress.Delete(id) }
}

// forwardProgress hands e to the watcher of its call, if any.
func (s *Session) forwardProgress(e *ToolProgress) {
	if fn, ok := s.gwProgress.Load(e.CallID); ok {
		fn.(func(ToolProgress))(mcp.RedactAll(s.servers, *e))
	}
}
