package session

// PublishForTest publishes e as the session publishes its own events:
// redacted, logged, handed to subscribers.
func (s *Session) PublishForTest(e Event) { s.publish(e) }

// LogPathForTest is where the session writes its log.
func (s *Session) LogPathForTest() string { return s.log.Path() }

// ResourceUpdateIntervalForTest is the least time between two
// resource_updated events of one server.
var ResourceUpdateIntervalForTest = resourceUpdateInterval

// MarkEveryForTest sets how much past its mark a reading of parked calls
// must read to keep a new mark, until the test ends.
func MarkEveryForTest(t interface{ Cleanup(func()) }, n int64) {
	old := markEvery
	markEvery = n
	t.Cleanup(func() { markEvery = old })
}

// MarkPathForTest is the park mark file of session id's log in dir.
func MarkPathForTest(dir, id string) string { return markPath(dir + "/" + id + ".jsonl") }
