package session

// bases are the folders the named server may resolve a relative path
// against, for the gate (permissions.Call.Bases): nil without servers or
// for a server whose folders latch cannot know.
func (s *Session) bases(server string) []string {
	if s.servers == nil || server == "" {
		return nil
	}
	return s.servers.Bases(server)
}
