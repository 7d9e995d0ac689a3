package ui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"latch/session"
	"latch/session/ollamatest"
)

// TestStreamWritesEachWordOnce plays the byte stream of a streamed reply
// on a model of the terminal and counts the words written to the chat's
// rows, the reply's end included: each word of the reply is written about
// once (on average at most 1.1 times), because the unfinished block is
// drawn as it will stay.
func TestStreamWritesEachWordOnce(t *testing.T) {
	for _, profile := range []termenv.Profile{termenv.ANSI256, termenv.TrueColor} {
		t.Run(profileName(profile), func(t *testing.T) {
			m, log := streamThroughScreen(t, profile)
			// The reply's end: it is rendered whole once more.
			h := session.Header{Time: time.Now()}
			m.Update(eventsMsg{events: []session.Event{&session.AssistantMessage{Header: h, Turn: 1, Content: ollamatest.Markdown(3000)},
				&session.TurnDone{Header: h, Turn: 1, Reason: session.ReasonStop}}})
			m.View()
			log.expect(m)
			term := make(termRows, 40)
			written, atEnd := 0, 0
			chatTop, chatBottom := 1, m.chat.height
			for i, frame := range log.frames {
				for row, w := range term.apply(t, frame) {
					if row >= chatTop && row <= chatBottom {
						n := len(strings.Fields(ansi.Strip(w[2])))
						written += n
						if i == len(log.frames)-1 {
							atEnd += n
						}
					}
				}
			}
			reply := 0
			for _, l := range newMDRenderer("dark").render(sanitizeText(ollamatest.Markdown(3000)), 120) {
				reply += len(strings.Fields(ansi.Strip(l)))
			}
			ratio := float64(written) / float64(reply)
			t.Logf("%d words written for a reply of %d: %.2f writes a word (%d of them by the reply's end)", written, reply, ratio, atEnd)
			if ratio > 1.1 {
				t.Errorf("each word of the reply written %.2f times on average, want at most 1.1", ratio)
			}
		})
	}
}
