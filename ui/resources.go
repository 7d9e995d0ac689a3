package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/session"
	"latch/themes"
	"latch/ui/sanitize"
)

// resourceTimeout bounds what a resource command waits for its servers.
const resourceTimeout = 30 * time.Second

const resourcesUsage = "usage: /resources [SERVER [watch|unwatch URI]]"

// cmdResources lists the resources and templates of one server or of
// every connected server that offers some (/resources [SERVER]), or
// watches a resource (/resources SERVER watch|unwatch URI). It asks the
// servers in the background.
func (m *Model) cmdResources(args []string) tea.Cmd {
	rb := m.res
	if rb == nil {
		m.addError("/resources: not available here")
		return nil
	}
	switch {
	case len(args) <= 1:
		servers := args
		if len(servers) == 0 {
			servers = rb.ResourceServers()
		}
		if len(servers) == 0 {
			m.addNotice("no connected server offers resources (/servers shows them)")
			return nil
		}
		return listResources(rb, servers)
	case len(args) == 3 && (args[1] == "watch" || args[1] == "unwatch"):
		return watchResource(rb, args[0], args[1], args[2])
	}
	m.addError(resourcesUsage)
	return nil
}

// resourcesMsg carries the listings of a /resources, in order.
type resourcesMsg struct {
	listings []session.ResourceListing
	errs     []string
}

func listResources(rb Resources, servers []string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), resourceTimeout)
		defer cancel()
		var msg resourcesMsg
		for _, s := range servers {
			l, err := rb.ListResources(ctx, s)
			if err != nil {
				msg.errs = append(msg.errs, "/resources "+sanitize.Line(s)+": "+sanitizeText(err.Error()))
				continue
			}
			msg.listings = append(msg.listings, l)
		}
		return msg
	}
}

// handleResources shows the listings, and keeps them for @ completion.
func (m *Model) handleResources(msg resourcesMsg) {
	for _, l := range msg.listings {
		m.resCache().lists[l.Server] = l
		m.addNotice(resourceListing(l))
	}
	for _, e := range msg.errs {
		m.addError(e)
	}
}

// resourceListing is a server's resources and templates as /resources
// shows them: URI and MIME type, then name and description; what it
// offers; what is watched, and how many updates of other resources were
// ignored.
func resourceListing(l session.ResourceListing) string {
	var b strings.Builder
	srv := sanitize.Line(l.Server)
	fmt.Fprintf(&b, "%s: %s, %s", srv, resPlural(len(l.Resources), "resource"), resPlural(len(l.Templates), "template"))
	if l.Subscribe {
		b.WriteString(" · watch")
	}
	if l.Completions {
		b.WriteString(" · completes")
	}
	fmt.Fprintf(&b, "\n  @%s:URI in a message attaches one (tab completes)", srv)
	for _, r := range l.Resources {
		fmt.Fprintf(&b, "\n  %s  %s", sanitize.Line(r.URI), sanitize.Line(r.MIMEType))
		b.WriteString(resDescribe(r.Name, r.Title, r.Description))
	}
	if len(l.Templates) > 0 {
		b.WriteString("\n  templates")
	}
	for _, t := range l.Templates {
		fmt.Fprintf(&b, "\n  %s  %s", sanitize.Line(t.URITemplate), sanitize.Line(t.MIMEType))
		b.WriteString(resDescribe(t.Name, t.Title, t.Description))
	}
	for _, w := range l.Watched {
		fmt.Fprintf(&b, "\n  watched: %s", sanitize.Line(w))
	}
	if l.Ignored > 0 {
		fmt.Fprintf(&b, "\n  ignored: %s of resources not watched", resPlural(l.Ignored, "update"))
	}
	return b.String()
}

// resDescribe is a resource's name (or title) and description, as one
// indented line, or "" when it has neither.
func resDescribe(name, title, desc string) string {
	if title != "" {
		name = title
	}
	s := sanitize.Line(name)
	if d := sanitize.Line(desc); d != "" {
		if s != "" {
			s += " — "
		}
		s += d
	}
	if s == "" {
		return ""
	}
	return "\n      " + s
}

func resPlural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// watchResource is /resources SERVER watch|unwatch URI, in the background.
func watchResource(rb Resources, server, verb, uri string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), resourceTimeout)
		defer cancel()
		f := rb.WatchResource
		if verb == "unwatch" {
			f = rb.UnwatchResource
		}
		where := sanitize.Line(server) + " " + sanitize.Line(uri)
		if err := f(ctx, server, uri); err != nil {
			return cmdDoneMsg{err: "/resources " + sanitize.Line(server) + " " + verb + ": " + sanitizeText(userMessage(err))}
		}
		if verb == "unwatch" {
			return cmdDoneMsg{notice: "no longer watching " + where}
		}
		return cmdDoneMsg{notice: "watching " + where + ": its updates are shown here"}
	}
}

// handleResourceEvent shows what attaching resources and watching them
// brought: an attachment's card, an update's notice.
func (m *Model) handleResourceEvent(e session.Event) {
	switch e := e.(type) {
	case *session.AttachmentEvent:
		m.chat.add(&entry{kind: noticeEntry, turn: e.Turn, text: attachmentCard(e)})
	case *session.ResourceUpdatedEvent:
		m.addNotice(fmt.Sprintf("%s: resource updated: %s (@%s:%s attaches it as it is now)",
			sanitize.Line(e.Server), sanitize.Line(e.URI), sanitize.Line(e.Server), sanitize.Line(e.URI)))
	case *session.ResourcesChangedEvent:
		delete(m.resCache().lists, e.Server)
	}
}

// attachmentCard says what a resource added to the message: server, URI,
// kind, size, and whether it was cut or why it was not sent.
func attachmentCard(e *session.AttachmentEvent) string {
	name := "@" + sanitize.Line(e.Server) + ":" + sanitize.Line(e.URI)
	mime := sanitize.Line(e.MIMEType)
	if mime == "" {
		mime = "unknown type"
	}
	switch e.Kind {
	case session.AttachText:
		if e.Cut {
			return fmt.Sprintf("⊕ attached %s · text · %s · cut: the first %s of %s sent", name, mime, humanSize(int64(e.Sent)), humanSize(int64(e.Size)))
		}
		return fmt.Sprintf("⊕ attached %s · text · %s · %s", name, mime, humanSize(int64(e.Size)))
	case session.AttachImage:
		return fmt.Sprintf("⊕ attached %s · image · %s · %s", name, mime, humanSize(int64(e.Size)))
	}
	return fmt.Sprintf("⊘ described, not sent: %s · %s · %s · %s", name, mime, humanSize(int64(e.Size)), sanitize.Line(e.Note))
}

// namesResources reports whether a message names resources to attach
// (@SERVER:URI): it is then sent in the background, as reading them asks
// the servers.
func (m *Model) namesResources(text string) bool {
	return m.srv != nil && len(session.ParseAttachments(text, m.srv.ServerNames())) > 0
}

// attachSentMsg is the end of a send that read resources first.
type attachSentMsg struct {
	text string
	err  error
}

// sendAttached sends a message that names resources, in the background.
// Until it is sent, other messages wait in the queue.
func (m *Model) sendAttached(text string) tea.Cmd {
	m.attaching++
	m.input.reset()
	m.layout()
	m.chat.gotoBottom()
	sess := m.sess
	return func() tea.Msg { return attachSentMsg{text: text, err: sess.Send(text)} }
}

// handleAttachSent ends a send that read resources: on failure the error
// says which resource, and the text comes back to the input.
func (m *Model) handleAttachSent(msg attachSentMsg) {
	m.attaching--
	if msg.err != nil {
		m.addError(sanitizeText(userMessage(msg.err)))
		if m.input.value() == "" {
			m.input.set(msg.text) // nothing typed is lost
			m.layout()
		}
	}
	if !m.running {
		m.sendQueued()
	}
	m.dirty = true
}

// addResources lists on a tool's card the resources its result links to
// or embeds, each as the @SERVER:URI that attaches it to a message.
func (c *card) addResources(out *cardLines, st *themes.Styles) {
	for _, uri := range c.resources {
		out.add("resource: @"+sanitize.Line(c.server)+":"+sanitize.Line(uri), st.Chat.Footer.Render)
	}
}
