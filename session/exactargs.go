package session

// applyAnswer applies what a running answer grants beyond the call itself:
// `a` the tool for the session (only these arguments on a server with
// approve_args "exact"), `e` these arguments, `A` the tool always (saved).
// Both the model's asked calls and a gateway client's go through it.
func (s *Session) applyAnswer(c *toolCall, ans Answer) {
	switch ans {
	case AnswerAlways:
		if s.gate.ApprovesExactArgs(c.perm.Server) {
			s.grantArgs(c)
			return
		}
		s.grant(c.perm)
	case AnswerExact:
		s.grantArgs(c)
	case AnswerSave:
		s.answerSaved(c)
	}
}

// grantArgs allows c's tool with c's exact arguments for the session, and
// says so; arguments that cannot be compared exactly are granted nothing,
// and the user is told that the next such call asks again.
func (s *Session) grantArgs(c *toolCall) {
	if err := s.gate.GrantArgs(c.perm); err != nil {
		s.publish(&Notice{Header: s.header(TypeNotice), Text: "not remembered for " + c.name + ": " + err.Error() +
			"; it ran once, and the next call asks again"})
		return
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: c.name + " is allowed with these exact arguments for this session" +
		" (other arguments ask again; /revoke " + c.name + " undoes it)"})
}

// ApprovesExactArgs reports whether `a` in the box approves only a call's
// exact arguments for server (its approve_args is "exact").
func (s *Session) ApprovesExactArgs(server string) bool { return s.gate.ApprovesExactArgs(server) }
