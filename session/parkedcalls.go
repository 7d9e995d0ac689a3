package session

// callBlock is how many calls a block of a callList holds, past its
// first (which grows as a slice does, so that a log with a few parked
// calls allocates a few).
const callBlock = 256

// callList is the calls a reading of a log parks, in the order parked,
// kept in blocks that are never copied as the list grows: a slice grown
// call by call copied each call about four times over (10,000 parked
// calls: 19 MB allocated to hold 4). all copies them once, into a slice
// of their number.
type callList struct {
	blocks [][]ParkedCall
	n      int
}

// add appends p.
func (l *callList) add(p ParkedCall) {
	last := len(l.blocks) - 1
	if last < 0 || len(l.blocks[last]) == callBlock {
		var b []ParkedCall
		if last >= 0 {
			b = make([]ParkedCall, 0, callBlock)
		}
		l.blocks = append(l.blocks, b)
		last++
	}
	l.blocks[last] = append(l.blocks[last], p)
	l.n++
}

// at is the i-th call added.
func (l *callList) at(i int) *ParkedCall { return &l.blocks[i/callBlock][i%callBlock] }

// any says whether f is true of a call.
func (l *callList) any(f func(ParkedCall) bool) bool {
	for _, b := range l.blocks {
		for i := range b {
			if f(b[i]) {
				return true
			}
		}
	}
	return false
}

// all is the calls in one slice (nil for none): the first block itself
// when it is the only one (joinCalls).
func (l *callList) all() []ParkedCall { return joinCalls([]callList{*l}) }

// joinCalls is the calls of every list in one slice, in order, allocated
// once (nil for none).
func joinCalls(lists []callList) []ParkedCall {
	n := 0
	for _, l := range lists {
		n += l.n
	}
	if n == 0 {
		return nil
	}
	if len(lists) == 1 && len(lists[0].blocks) == 1 {
		return lists[0].blocks[0]
	}
	out := make([]ParkedCall, 0, n)
	for _, l := range lists {
		for _, b := range l.blocks {
			out = append(out, b...)
		}
	}
	return out
}
