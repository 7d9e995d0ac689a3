package session

// PublishForTest publishes e as the session publishes its own events:
// redacted, logged, handed to subscribers.
func (s *Session) PublishForTest(e Event) { s.publish(e) }

// LogPathForTest is where the session writes its log.
func (s *Session) LogPathForTest() string { return s.log.Path() }

// ResourceUpdateIntervalForTest is the least time between two
// resource_updated events of one server.
var ResourceUpdateIntervalForTest = resourceUpdateInterval
