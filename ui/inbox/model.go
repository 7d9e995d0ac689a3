package inbox

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/permissions"
	"latch/session"
	"latch/themes"
	"latch/ui/notice"
	"latch/ui/sanitize"
)

// guard is how long a confirmation step ignores keys after it opens, and
// after each key that comes while it does: a step that opens while keys
// are arriving takes none of them.
const guard = 300 * time.Millisecond

// ringEvery is the least time between two notices of new calls.
const ringEvery = 2 * time.Second

// Model is the inbox's screen.
type Model struct {
	o  Options
	st themes.Styles

	calls  []Call          // waiting now, oldest first
	loaded bool            // calls has been read once
	read   bool            // the first read is in (read or failed)
	early  []tea.KeyMsg    // keys that came before it, for the list once it is in
	err    string          // why the last read failed
	rung   map[string]bool // the calls the terminal was told of
	ring   notice.Throttle // at most one notice every ringEvery
	marked map[string]bool
	sel    string // the key of the selected call
	scroll int    // the first line of the selected call's arguments shown
	full   bool   // every value of the arguments whole

	body    argsBody          // the selected call's arguments laid out (argBody)
	oneLine map[string]string // each call's arguments on one line (argLine)

	filter    string
	filtering bool // keys go into the filter

	step    *step               // the confirmation step, when open
	busy    int                 // decisions on their way
	reading bool                // a read of the Source is under way
	reread  bool                // another read was asked for meanwhile
	ticking bool                // the next poll is scheduled
	watch   []watched           // calls approved here, watched for what they then did
	stamps  map[string]logStamp // their session logs as last looked at
	notes   []string            // under the list: the last notes
	all     notesList           // every note, for the full list (L)
	prevKey time.Time           // when the key before the last came

	w, h int
}

// New is the inbox's model; its Init starts reading the waiting calls.
func New(o Options) *Model {
	if o.Source == nil {
		o.Source = Watch(o.Dir)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if f := o.Find; f != nil {
		// A decision's goroutine and a read's look up calls at once;
		// the index behind Find takes one look-up at a time.
		var mu sync.Mutex
		o.Find = func(sessionID string, callIDs []string) ([]session.ParkedCall, error) {
			mu.Lock()
			defer mu.Unlock()
			return f(sessionID, callIDs)
		}
	}
	if o.Every <= 0 {
		o.Every = 250 * time.Millisecond
	}
	st := themes.Default()
	if o.Styles != nil {
		st = *o.Styles
	}
	return &Model{o: o, st: st, rung: map[string]bool{}, ring: notice.Throttle{Every: ringEvery}, marked: map[string]bool{},
		oneLine: map[string]string{}, w: 80, h: 24}
}

// key names a call in the inbox: its session and approval id.
func key(c Call) string { return c.Session + "/" + c.ApprovalID }

// loadedMsg carries the calls read, or why they could not be, and what
// became of the calls approved here that were watched.
type loadedMsg struct {
	calls []Call
	err   error
	ran   ranReport
}

// pollMsg asks for the next read.
type pollMsg struct{}

// guardMsg wakes the screen when a step's guard may have passed.
type guardMsg struct{}

// Init reads the waiting calls at once.
func (m *Model) Init() tea.Cmd { return m.load() }

// load reads the waiting calls from the source. One read at a time: a
// read asked for while one is under way (a decision's, beside a poll's)
// runs when that one is in, so an older read never overwrites a newer
// one, and the Source is never called twice at once.
func (m *Model) load() tea.Cmd {
	if m.reading {
		m.reread = true
		return nil
	}
	m.reading = true
	src, dir, find, now := m.o.Source, m.o.Dir, m.o.Find, m.o.Now()
	w, stamps := append([]watched(nil), m.watch...), maps.Clone(m.stamps)
	return func() tea.Msg {
		calls, err := src()
		return loadedMsg{calls, err, lookRan(dir, w, find, now, stamps)}
	}
}

// Update takes a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
	case loadedMsg:
		m.reading = false
		m.took(msg)
		m.settle(msg.ran)
		early := m.replay()
		if m.reread {
			m.reread = false
			return m, tea.Batch(early, m.load())
		}
		if m.ticking { // one poll chain, however many reads decisions asked for
			return m, early
		}
		m.ticking = true
		return m, tea.Batch(early, tea.Tick(m.o.Every, func(time.Time) tea.Msg { return pollMsg{} }))
	case pollMsg:
		m.ticking = false
		return m, m.load()
	case guardMsg:
	case savedMsg:
		m.note(msg.line)
	case decidedMsg:
		m.busy -= msg.n
		m.noteDecided(msg.lines)
		until := m.o.Now().Add(resultWatch)
		for _, c := range msg.approved {
			m.watch = append(m.watch, watched{c, until})
		}
		return m, m.load()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// took puts a read in place: the selection stays on its call, marks of
// calls gone go, and each call not seen before rings once.
func (m *Model) took(msg loadedMsg) {
	if msg.err != nil {
		m.err = sanitize.Line(msg.err.Error())
		return
	}
	m.err = ""
	now := map[string]bool{}
	fresh := ""
	for _, c := range msg.calls {
		k := key(c)
		now[k] = true
		if !m.rung[k] {
			m.rung[k] = true
			if fresh == "" {
				fresh = c.Tool
			}
		}
	}
	// Calls waiting when the inbox opened are on its screen already; a
	// burst of new ones rings once (ringEvery).
	if fresh != "" && m.loaded && m.o.Ring != nil && m.ring.Allow(m.o.Now()) {
		m.o.Ring(notice.Sequence(m.o.Notice, fresh))
	}
	for k := range m.rung {
		if !now[k] {
			delete(m.rung, k)
		}
	}
	for k := range m.marked {
		if !now[k] {
			delete(m.marked, k)
		}
	}
	for k := range m.oneLine {
		if !now[k] {
			delete(m.oneLine, k)
		}
	}
	m.calls, m.loaded = msg.calls, true
	if m.sel != "" && !now[m.sel] {
		m.sel, m.scroll = "", 0
	}
	if v := m.visible(); m.sel == "" && len(v) > 0 {
		m.sel = key(v[0])
	}
}

// visible are the calls the filter lets through.
func (m *Model) visible() []Call {
	if m.filter == "" {
		return m.calls
	}
	f := strings.ToLower(m.filter)
	var out []Call
	for _, c := range m.calls {
		client := c.Client
		if c.Chat() {
			client = "(chat)"
		}
		for _, s := range []string{client, c.Tool, c.Server} {
			if strings.Contains(strings.ToLower(s), f) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// selected is the selected call and its index among the visible ones.
func (m *Model) selected() (Call, int, bool) {
	for i, c := range m.visible() {
		if key(c) == m.sel {
			return c, i, true
		}
	}
	return Call{}, -1, false
}

// move selects the call d places down (up when negative).
func (m *Model) move(d int) {
	v := m.visible()
	if len(v) == 0 {
		return
	}
	_, i, ok := m.selected()
	if !ok {
		i = 0
	} else {
		i = min(max(i+d, 0), len(v)-1)
	}
	if k := key(v[i]); k != m.sel {
		m.sel, m.scroll = k, 0
	}
}

// markLike marks every waiting call with the selected call's server, tool
// (and definition) and exactly the same arguments, and says how many.
func (m *Model) markLike() {
	c, _, ok := m.selected()
	if !ok {
		return
	}
	want, exact := permissions.CanonicalArgs(c.Arguments)
	if !exact {
		m.note("its arguments have no exact form to compare: marked it alone")
		m.marked[key(c)] = true
		return
	}
	n := 0
	for _, o := range m.calls {
		if o.Server != c.Server || o.Tool != c.Tool || o.Digest != c.Digest || o.Chat() != c.Chat() {
			continue
		}
		if args, ok := permissions.CanonicalArgs(o.Arguments); ok && args == want {
			m.marked[key(o)] = true
			n++
		}
	}
	msg := fmt.Sprintf("marked %d %s like this: %s with the same arguments", n, plural(n, "call", "calls"), sanitize.Line(c.Tool))
	if m.o.Rule != nil && !c.Chat() {
		msg += " · R saves a rule so they stop parking (in gateways started after)"
	}
	m.note(msg)
}

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
