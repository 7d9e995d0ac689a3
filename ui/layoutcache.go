package ui

// layoutBudget bounds the bytes of cached layout the chat keeps. A finished
// entry's layout is cached so that drawing it again costs nothing; styled
// lines are large (a coloured reply is tens of KB), so a long chat would
// otherwise hold every entry ever seen. The oldest layouts beyond the
// budget are dropped and made again if scrolled back to.
const layoutBudget = 16 << 20

// layoutCache remembers which entries hold a cached layout, oldest first.
type layoutCache struct {
	budget int
	bytes  int // of the layouts queued, some perhaps already replaced
	queue  []cachedLayout
}

// cachedLayout is one layout made for entry i; gen tells whether the entry
// still holds it.
type cachedLayout struct {
	i, gen, bytes int
}

// added records that entry i (e) was just laid out.
func (c *layoutCache) added(i int, e *entry) {
	n := 0
	for _, l := range e.lines {
		n += len(l) + 16 // the line and its string header
	}
	c.queue = append(c.queue, cachedLayout{i: i, gen: e.gen, bytes: n})
	c.bytes += n
}

// trim drops the oldest layouts while over budget, except those of the
// entries on screen (first to last), which would only be made again at
// once. entries is the chat.
func (c *layoutCache) trim(entries []*entry, first, last int) {
	budget := c.budget
	if budget == 0 {
		budget = layoutBudget
	}
	var keep []cachedLayout
	for len(c.queue) > 0 && c.bytes > budget {
		l := c.queue[0]
		c.queue[0] = cachedLayout{}
		c.queue = c.queue[1:]
		if l.i < len(entries) && entries[l.i].gen == l.gen {
			if first <= l.i && l.i <= last {
				keep = append(keep, l)
				continue
			}
			entries[l.i].lines = nil
		}
		c.bytes -= l.bytes
	}
	c.queue = append(c.queue, keep...)
}

// reset forgets every record (the chat was cleared).
func (c *layoutCache) reset() {
	c.queue = nil
	c.bytes = 0
}
