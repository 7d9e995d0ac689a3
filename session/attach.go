package session

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"

	"latch/mcp"
)

// AttachTextCap is the most bytes of one resource's text attached to a
// message; the rest is cut, with a note saying so.
const AttachTextCap = 32 << 10

// Kinds of attachment, in AttachmentEvent.Kind.
const (
	AttachText      = "text"      // inline in the message
	AttachImage     = "image"     // sent as an image (a vision model)
	AttachDescribed = "described" // not sent: the message says what it is
)

// AttachmentEvent says what a resource named in the person's message
// (@SERVER:URI) added to what the model was sent.
type AttachmentEvent struct {
	Header
	Turn     int    `json:"turn"`
	Server   string `json:"server"`
	URI      string `json:"uri"`
	Kind     string `json:"kind"`
	MIMEType string `json:"mime_type,omitempty"`
	Size     int    `json:"size"`           // bytes of the resource's text or blob
	Sent     int    `json:"sent"`           // bytes of it the model was given
	Cut      bool   `json:"cut,omitempty"`  // the text was cut to AttachTextCap
	Note     string `json:"note,omitempty"` // why it was described rather than sent
}

// AttachRef is a resource named in a message: @SERVER:URI.
type AttachRef struct {
	Server string
	URI    string
}

// ParseAttachments finds the resources a message names, in order, each
// once: "@SERVER:URI" at the start of the text or after a space or an
// opening bracket or quote, SERVER
// one of servers (the longest that fits), URI up to the next space, less
// trailing punctuation. Anything else with an @ is text.
func ParseAttachments(text string, servers []string) []AttachRef {
	var out []AttachRef
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || (i > 0 && !unicode.IsSpace(rune(text[i-1])) && !strings.ContainsRune("([{\"'", rune(text[i-1]))) {
			continue
		}
		rest := text[i+1:]
		server := ""
		for _, n := range servers {
			if strings.HasPrefix(rest, n+":") && len(n) > len(server) {
				server = n
			}
		}
		if server == "" {
			continue
		}
		uri := rest[len(server)+1:]
		if end := strings.IndexFunc(uri, unicode.IsSpace); end >= 0 {
			uri = uri[:end]
		}
		uri = strings.TrimRight(uri, ".,;!?\"'")
		if strings.HasSuffix(uri, ")") && !strings.Contains(uri, "(") {
			uri = strings.TrimRight(uri, ")")
		}
		if ref := (AttachRef{server, uri}); uri != "" && !slices.Contains(out, ref) {
			out = append(out, ref)
		}
		i += len(server)
	}
	return out
}

// attached is what a message's resources add to it.
type attached struct {
	text   string // appended to the person's text
	images []api.ImageData
	events []*AttachmentEvent
}

// attach reads every resource text names and builds what it adds to the
// message. A resource that cannot be read fails it all, naming the server
// and URI: nothing is sent.
func (s *Session) attach(ctx context.Context, text string) (attached, error) {
	var a attached
	if s.servers == nil {
		return a, nil
	}
	refs := ParseAttachments(text, s.servers.Names())
	if len(refs) == 0 {
		return a, nil
	}
	// Whether the model sees images is asked only for an image.
	asked, why := false, ""
	vision := func() string {
		if !asked {
			asked, why = true, s.canSee(ctx)
		}
		return why
	}
	for _, r := range refs {
		parts, err := s.servers.ReadResource(ctx, r.Server, r.URI, AttachTextCap)
		if err != nil {
			return attached{}, &UserError{Msg: fmt.Sprintf("cannot attach @%s:%s: %s (nothing was sent)", r.Server, r.URI, err)}
		}
		if len(parts) == 0 {
			return attached{}, &UserError{Msg: fmt.Sprintf("cannot attach @%s:%s: the server returned no contents (nothing was sent)", r.Server, r.URI)}
		}
		for _, p := range parts {
			a.add(r, p, vision)
		}
	}
	for _, e := range a.events {
		e.Header = s.header(TypeAttachment)
	}
	return a, nil
}

// add adds one part of a read resource: text inline, an image as an image
// for a model that sees, anything else described.
func (a *attached) add(r AttachRef, p mcp.ResourceContents, vision func() string) {
	uri := p.URI
	if uri == "" {
		uri = r.URI
	}
	name := r.Server + ":" + uri
	e := &AttachmentEvent{Server: r.Server, URI: uri, MIMEType: p.MIMEType, Size: p.Size}
	mime := p.MIMEType
	if mime == "" {
		mime = "unknown type"
	}
	switch {
	case !p.IsBlob:
		e.Kind, e.Sent, e.Cut = AttachText, len(p.Text), p.Cut
		a.text += fmt.Sprintf("\n\n[attached resource %s (%s, %d bytes)]\n%s", name, mime, p.Size, p.Text)
		if p.Cut {
			a.text += fmt.Sprintf("\n[cut: only the first %d of %d bytes of %s are attached]", len(p.Text), p.Size, name)
		}
		a.text += "\n[end of " + name + "]"
	case strings.HasPrefix(p.MIMEType, "image/") && p.Size > MaxImageBytes:
		e.Kind = AttachDescribed
		e.Note = tooBigImage(p.Size)
		a.text += fmt.Sprintf("\n\n[not attached: %s is an image (%s, %d bytes): %s]", name, mime, p.Size, e.Note)
	case strings.HasPrefix(p.MIMEType, "image/") && vision() == "":
		e.Kind, e.Sent = AttachImage, p.Size
		a.images = append(a.images, api.ImageData(p.Blob))
		a.text += fmt.Sprintf("\n\n[attached image %s (%s, %d bytes): sent as an image]", name, mime, p.Size)
	default:
		e.Kind = AttachDescribed
		e.Note = "only text and images are attached"
		if strings.HasPrefix(p.MIMEType, "image/") {
			e.Note = vision()
		}
		a.text += fmt.Sprintf("\n\n[not attached: %s is binary (%s, %d bytes): %s]", name, mime, p.Size, e.Note)
	}
	a.events = append(a.events, e)
}

// MaxImageBytes is the largest image latch sends a model (from a resource
// or a prompt); a larger one is described instead. Every image sent is
// also kept in the session log, for resume.
const MaxImageBytes = 8_000_000

// tooBigImage says why an image of n bytes is not sent.
func tooBigImage(n int) string {
	return fmt.Sprintf("too large to send (%s; latch sends images up to %s)", byteSize(n), byteSize(MaxImageBytes))
}

// canSee says why the current model cannot be sent images, or "" when it
// can: its capabilities (from /api/show) include vision.
func (s *Session) canSee(ctx context.Context) string {
	model, caps, known := s.modelCaps(ctx)
	switch {
	case !known:
		return "the capabilities of " + model + " are unknown (/api/show failed), so no image is sent"
	case slices.Contains(caps, "vision"):
		return ""
	}
	return model + " cannot see images (no vision capability)"
}

// readyToSend says why no turn can begin now (ErrBusy, ErrNoModel), or
// nil: checked before a send reads the resources its text names.
func (s *Session) readyToSend() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.cancel != nil:
		return ErrBusy
	case s.model == "":
		return ErrNoModel
	}
	return nil
}
