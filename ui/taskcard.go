package ui

import (
	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// cardTask is what a card shows of a call that runs as a task on its
// server: the task's id, and its status and message as last polled.
type cardTask struct {
	id      string
	status  string
	message string
	resumed bool // polled again by a resumed session
}

// onTask shows a task's status on its call's card. A task polled again
// after a restart has no permission event this time: its card runs from
// its first status. It reports whether the call has a card.
func (m *Model) onTask(e *session.ToolTaskEvent) bool {
	en := m.cardFor(e.CallID)
	if en == nil {
		return false
	}
	c := en.card
	if c.task == nil || c.task.id != e.TaskID {
		c.task = &cardTask{id: e.TaskID}
	}
	c.task.status, c.task.message, c.task.resumed = e.Status, e.Message, c.task.resumed || e.Resumed
	if !m.replaying && !c.settled() && c.state != cardRunning && !e.Ended() {
		c.state, c.started = cardRunning, m.now()
	}
	en.invalidate()
	return true
}

// addTask puts the task's line in the card's box: its id, its status and
// the server's message, made inert.
func (c *card) addTask(out *cardLines, st *themes.Styles) {
	if c.task == nil {
		return
	}
	line := "task " + sanitize.Line(c.task.id) + " · " + taskStatusText(c.task.status)
	if c.task.resumed {
		line += " · polled again after a restart"
	}
	if c.task.message != "" {
		line += " — " + sanitize.Line(c.task.message)
	}
	style := st.Chat.Notice.Render
	if c.task.status == session.TaskFailed || c.task.status == session.TaskCancelled {
		style = st.Chat.Error.Render
	}
	out.add(line, style)
}

// taskStatusText is a task status in words.
func taskStatusText(status string) string {
	switch status {
	case session.TaskWorking:
		return "working"
	case session.TaskInputRequired:
		return "waiting for input"
	case session.TaskCompleted:
		return "completed"
	case session.TaskFailed:
		return "failed on the server"
	case session.TaskCancelled:
		return "cancelled on the server"
	}
	return sanitize.Line(status)
}
