package ui

import tea "github.com/charmbracelet/bubbletea"

// cmdFork ends this chat so that it goes on in a fork of the session
// (/fork): the program that ran the chat opens the fork and a new screen
// for it (Forking). This session is closed as it is, still resumable; what
// it waits on stays with it.
func (m *Model) cmdFork(args []string) tea.Cmd {
	if len(args) > 0 {
		m.badArgs("fork")
		return nil
	}
	switch {
	case m.queueCommand("/fork"):
		return nil // it runs when the turn ends (queuecmd.go)
	case m.serving != nil:
		m.addError("/fork: clients of the gateway beside this chat (--serve) call through this session; " +
			"quit, then start latch --fork " + m.sess.ID() + " --serve … for a fork that serves")
		return nil
	case m.sess.LogProblem() != "":
		m.addError("/fork: the session log cannot be written, so there is nothing to fork from: " + m.sess.LogProblem())
		return nil
	}
	m.forking = true
	return m.quit()
}

// Forking reports whether the chat ended for /fork: the caller goes on in
// a fork of the session.
func (m *Model) Forking() bool { return m.forking }
