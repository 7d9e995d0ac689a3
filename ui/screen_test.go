package ui

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
	"latch/themes"
)

// frameLog keeps each write to the terminal as one frame (the screen
// writes a frame with one Write).
type frameLog struct {
	frames [][]byte
	want   [][]string // after each frame, the model's frame, tidied
}

// expect records the model's frame as what the terminal must hold after
// the frame just written, if one was.
func (l *frameLog) expect(m *Model) {
	for len(l.want) < len(l.frames) {
		rows := strings.Split(m.render(), "\n")
		for i, r := range rows {
			rows[i] = tidyRow(r)
		}
		l.want = append(l.want, rows)
	}
}

func (l *frameLog) Write(p []byte) (int, error) {
	l.frames = append(l.frames, bytes.Clone(p))
	return len(p), nil
}

// streamThroughScreen streams a 3,000-token markdown reply into a 120×40
// model that draws through a screen on a terminal that has synchronized
// output, in batches of 50 tokens (about a frame's worth), and returns the
// model and the frames written.
func streamThroughScreen(t *testing.T, profile termenv.Profile) (*Model, *frameLog) {
	lipgloss.SetColorProfile(profile)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:8b"})
	t.Cleanup(srv.Close)
	sess := session.New(session.Options{Client: srv.Client(), Host: srv.Host(), Model: "qwen3:8b"})
	log := &frameLog{}
	m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: log, SyncOutput: true})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.View()
	log.expect(m)
	h := session.Header{Time: time.Now()}
	m.Update(eventsMsg{events: []session.Event{&session.UserMessage{Header: h, Turn: 1, Text: "write a long document"}}})
	m.View()
	log.expect(m)
	toks := ollamatest.Tokens(ollamatest.Markdown(3000))
	for i := 0; i < len(toks); i += 50 {
		var evs []session.Event
		for _, tk := range toks[i:min(i+50, len(toks))] {
			evs = append(evs, &session.AssistantDelta{Header: h, Turn: 1, Text: tk.Content})
		}
		m.Update(eventsMsg{events: evs})
		m.View()
		log.expect(m)
		if m.View() != "" {
			t.Fatal("with an output, View must leave Bubble Tea nothing to draw")
		}
	}
	return m, log
}

var (
	cupSeq    = regexp.MustCompile(`^\x1b\[(\d+)(?:;(\d+))?H`)
	scrollSeq = regexp.MustCompile(`^\x1b\[(\d+);(\d+)r\x1b\[(\d+)S\x1b\[r`)
)

// termRows is the terminal as the frames leave it: each row's bytes as
// written (the screen always writes a row whole, from its first column).
type termRows []string

// apply plays one frame on the rows and returns the rows it wrote: what
// each held before, what it holds now, and the bytes written to it.
func (r termRows) apply(t *testing.T, frame []byte) (written map[int][3]string) {
	t.Helper()
	f := string(frame)
	if !strings.HasPrefix(f, syncOn) || !strings.HasSuffix(f, syncOff) {
		t.Fatalf("a frame not bracketed by synchronized output: %q", f)
	}
	f = strings.TrimSuffix(strings.TrimPrefix(f, syncOn), syncOff)
	if rest, ok := strings.CutPrefix(f, ansi.CursorHomePosition+ansi.EraseEntireScreen); ok {
		f = rest
		for i := range r {
			r[i] = ""
		}
	}
	if m := scrollSeq.FindStringSubmatch(f); m != nil {
		top, bottom, k := atoi(m[1])-1, atoi(m[2])-1, atoi(m[3])
		copy(r[top:], r[top+k:bottom+1])
		for i := bottom - k + 1; i <= bottom; i++ {
			r[i] = ""
		}
		f = f[len(m[0]):]
	}
	written = map[int][3]string{}
	for f != "" {
		m := cupSeq.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("unexpected bytes in a frame: %q", f)
		}
		f = f[len(m[0]):]
		end := strings.Index(f, "\x1b[")
		for end >= 0 && !cupSeq.MatchString(f[end:]) {
			next := strings.Index(f[end+2:], "\x1b[")
			if next < 0 {
				end = -1
				break
			}
			end += 2 + next
		}
		if end < 0 {
			end = len(f)
		}
		row := atoi(m[1]) - 1
		content := strings.TrimSuffix(f[:end], ansi.EraseLineRight)
		bytesWritten := content
		if m[2] != "" && m[2] != "1" {
			// Written from a column on: the cells before it stay, and
			// the text after it starts in the default style.
			content = tidyRow(cellsBefore(t, r[row], atoi(m[2])-1) + "\x1b[m" + content)
		}
		written[row] = [3]string{r[row], content, bytesWritten}
		r[row] = content
		f = f[end:]
	}
	return written
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// cellsBefore is the start of a row as written, up to its col'th cell.
func cellsBefore(t *testing.T, row string, col int) string {
	t.Helper()
	state, w := byte(0), 0
	for i := 0; i < len(row); {
		if w == col {
			return row[:i]
		}
		_, width, n, next := ansi.DecodeSequence(row[i:], state, nil)
		state = next
		i += n
		w += width
	}
	if w < col {
		t.Fatalf("a row written from column %d, but the row before has %d cells: %q", col+1, w, row)
	}
	return row
}

// TestScreenWritesOnlyWhatChanged plays the byte stream of a streaming
// reply on a model of the terminal: after the first frame, no frame writes
// a row whose content did not change, no blank cell carries colour codes,
// no row ends in blanks, the reply scrolls the chat instead of rewriting
// it, and after every frame the terminal holds exactly the model's frame.
func TestScreenWritesOnlyWhatChanged(t *testing.T) {
	for _, profile := range []termenv.Profile{termenv.ANSI256, termenv.TrueColor} {
		t.Run(profileName(profile), func(t *testing.T) {
			_, log := streamThroughScreen(t, profile)
			if len(log.frames) < 50 {
				t.Fatalf("%d frames for the reply", len(log.frames))
			}
			term := make(termRows, 40)
			total, rows, scrolls := 0, 0, 0
			for i, frame := range log.frames {
				total += len(frame)
				if bytes.Contains(frame, []byte("S\x1b[r")) {
					scrolls++
				}
				written := term.apply(t, frame)
				rows += len(written)
				for row, w := range written {
					if i > 0 && w[0] == w[1] {
						t.Errorf("frame %d rewrote row %d, which did not change: %q", i, row+1, w[1])
					}
					if msg := blankProblem(w[1]); msg != "" {
						t.Errorf("frame %d row %d: %s: %q", i, row+1, msg, w[1])
					}
				}
				for r := range term {
					if term[r] != log.want[i][r] {
						t.Fatalf("after frame %d, row %d on the terminal:\n %q\nwant\n %q", i, r+1, term[r], log.want[i][r])
					}
				}
			}
			if scrolls == 0 {
				t.Error("the chat never scrolled: each new line rewrote every row above it")
			}
			t.Logf("%d frames, %d bytes (%d a frame), %.1f rows a frame, %d scrolls",
				len(log.frames), total, total/len(log.frames), float64(rows)/float64(len(log.frames)), scrolls)
			if total > 60*1024 {
				t.Errorf("%d bytes for the reply, want at most 60 KiB", total)
			}
		})
	}
}

// blankProblem says what is wrong with the blanks of a written row:
// colour codes written for blanks alone (a style set, then only blanks
// that show nothing before the next style or the end), or blanks at its
// end.
func blankProblem(row string) string {
	var st sgr
	state := byte(0)
	lastBlank, end := false, 0 // the last cell is a blank that shows nothing
	open, openAt := false, 0   // a style was set and no visible cell has shown it yet
	for i := 0; i < len(row); {
		seq, width, n, next := ansi.DecodeSequence(row[i:], state, nil)
		state = next
		i += n
		switch {
		case width > 0:
			shows := seq != " " || st.visibleBlank()
			if shows {
				open = false
			}
			lastBlank, end = !shows, i
		case strings.HasPrefix(seq, "\x1b[") && strings.HasSuffix(seq, "m"):
			if open {
				return fmt.Sprintf("colour codes at byte %d cover blanks alone", openAt)
			}
			st.apply(seq[2 : len(seq)-1])
			open, openAt = st != (sgr{}), i-n
		}
	}
	if open && end > openAt {
		return fmt.Sprintf("colour codes at byte %d cover blanks alone", openAt)
	}
	if lastBlank {
		return "the row ends in a blank"
	}
	return ""
}

// TestSynchronizedOutputOnlyWhereKnown: frames are bracketed by
// synchronized output only on a terminal that said it knows mode 2026.
func TestSynchronizedOutputOnlyWhereKnown(t *testing.T) {
	for _, sync := range []bool{false, true} {
		log := &frameLog{}
		sess := session.New(session.Options{Client: nil, Model: "m"})
		m := New(Options{Backend: sess, Styles: themes.Default(), FrameInterval: -1, Output: log, SyncOutput: sync})
		m.Update(tea.WindowSizeMsg{Width: 60, Height: 12})
		m.View()
		m.addNotice("a line")
		m.View()
		if len(log.frames) != 2 {
			t.Fatalf("%d frames, want 2", len(log.frames))
		}
		for _, f := range log.frames {
			on := bytes.HasPrefix(f, []byte(syncOn)) && bytes.HasSuffix(f, []byte(syncOff))
			if on != sync || bytes.Count(f, []byte("\x1b[?2026")) != map[bool]int{true: 2}[sync] {
				t.Errorf("terminal with synchronized output %v: frame %q", sync, f)
			}
		}
	}
}

// TestScreenRandomFrames draws random frames — rows of styled words, the
// region shifted up or down by random amounts, rows changed, added,
// blanked, the size changed — and checks after every frame that the
// terminal holds exactly the frame drawn.
func TestScreenRandomFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	styles := []string{"", "\x1b[38;5;252m", "\x1b[1;38;5;75;48;5;232m", "\x1b[4m", "\x1b[7m", "\x1b[38;2;1;2;3m"}
	row := func() string {
		if rng.IntN(5) == 0 {
			return ""
		}
		var b strings.Builder
		for range rng.IntN(6) + 1 {
			st := styles[rng.IntN(len(styles))]
			b.WriteString(st + []string{"word", "漢字", " ", "a b", "──"}[rng.IntN(5)] + "\x1b[0m" + strings.Repeat(" ", rng.IntN(3)))
		}
		return b.String()
	}
	scrolls := 0
	for round := range 20 {
		log := &frameLog{}
		s := newScreen(log, round%2 == 0)
		w, h := 20+rng.IntN(60), 6+rng.IntN(30)
		s.resize(w, h)
		term := make(termRows, h)
		rows := make([]string, h)
		for i := range rows {
			rows[i] = row()
		}
		for frame := range 60 {
			region := [2]int{1, h - 3}
			switch rng.IntN(6) {
			case 0: // the chat scrolls up by k, new rows at the bottom
				k := rng.IntN(region[1]-region[0]) + 1
				copy(rows[region[0]:], rows[region[0]+k:region[1]+1])
				for i := region[1] - k + 1; i <= region[1]; i++ {
					rows[i] = row()
				}
			case 1: // down (scrolling back through history)
				k := rng.IntN(region[1]-region[0]) + 1
				copy(rows[region[0]+k:region[1]+1], rows[region[0]:region[1]+1-k])
				for i := region[0]; i < region[0]+k; i++ {
					rows[i] = row()
				}
			case 2: // the resize
				if frame%7 == 0 {
					w, h = 20+rng.IntN(60), 6+rng.IntN(30)
					s.resize(w, h)
					term = make(termRows, h)
					rows = make([]string, h)
					for i := range rows {
						rows[i] = row()
					}
				}
			default: // some rows change
				for range rng.IntN(4) + 1 {
					rows[rng.IntN(h)] = row()
				}
			}
			s.draw(strings.Join(rows, "\n"), [2]int{1, h - 3})
			if len(log.frames) == 0 {
				continue
			}
			f := log.frames[len(log.frames)-1]
			log.frames = log.frames[:0]
			if !s.sync {
				f = append(append([]byte(syncOn), f...), syncOff...)
			}
			term.apply(t, f)
			for i := range h {
				if want := tidyRow(ansi.Truncate(rows[i], w, "")); term[i] != want {
					t.Fatalf("round %d frame %d (%d×%d), row %d:\n %q\nwant\n %q", round, frame, w, h, i+1, term[i], want)
				}
			}
		}
		scrolls += s.stats.scrolls
	}
	if scrolls < 50 {
		t.Errorf("only %d frames scrolled the region: the scroll path is hardly tried", scrolls)
	}
}
