package ui

// The permission boxes wait their turn: one is in front (m.modal), the
// others queue behind it (m.behind), oldest first, and the box in front
// says how many wait. The model asks one call at a time, but the clients
// of latch --serve may ask many at once: they must not replace the box the
// person is reading, nor pile up in front of the chat.

// openModal puts the question in front, or queues it behind the box
// there. A call that already has a box (asked, then parked) has it
// replaced in place. The box takes the keys when it comes to the front
// (showFront), if the person is not typing.
func (m *Model) openModal(c *card, approval string) {
	md := &modal{card: c, approval: approval}
	m.dirty = true
	switch {
	case m.modal == nil:
		m.modal = md
		return
	case m.modal.card.callID == c.callID:
		m.modal = md
		return
	}
	for i, q := range m.behind {
		if q.card.callID == c.callID {
			m.behind[i] = md
			return
		}
	}
	m.behind = append(m.behind, md)
}

// closeModal takes away the box of a call (it was decided elsewhere, it
// runs, it ended), in front or queued.
func (m *Model) closeModal(callID string) {
	m.dropModals(func(md *modal) bool { return md.card.callID == callID })
}

// removeModal takes away one box, answered or dismissed.
func (m *Model) removeModal(md *modal) {
	m.dropModals(func(q *modal) bool { return q == md })
}

// dropModals takes away the boxes drop says, and brings the next one in
// the queue to the front when the front one goes.
func (m *Model) dropModals(drop func(*modal) bool) {
	kept := m.behind[:0]
	for _, q := range m.behind {
		if !drop(q) {
			kept = append(kept, q)
		}
	}
	clear(m.behind[len(kept):])
	m.behind = kept
	if m.modal != nil && drop(m.modal) {
		m.modal = nil
	}
	if m.modal == nil && len(m.behind) > 0 {
		m.modal, m.behind = m.behind[0], m.behind[1:]
	}
	m.dirty = true
}

// allModals are the box in front and those queued behind it.
func (m *Model) allModals() []*modal {
	if m.modal == nil {
		return nil
	}
	return append([]*modal{m.modal}, m.behind...)
}
