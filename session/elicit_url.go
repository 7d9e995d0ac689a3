package session

import (
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// asciiLink is a server's link (URL-mode elicitation) as latch shows,
// opens and copies it, one string built here and nowhere else: the
// scheme, the host in punycode (an IPv6 address in brackets), the port,
// and the rest exactly as the server sent it but for each byte that is
// not printable ASCII or not allowed in a URL (controls, spaces, bidi
// controls, other non-ASCII, `"<>\^`{|}`), percent-encoded: the same
// resource, in a string where nothing renders as other than it is. It
// returns the link and its domain (the host), or why latch does not open
// it.
func asciiLink(raw string) (link, domain, reason string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() == "" || u.Opaque != "" ||
		!strings.HasPrefix(raw[len(u.Scheme)+1:], "//") {
		return "", "", "latch opens only http and https URLs with a host"
	}
	if !utf8.ValidString(raw) {
		return "", "", "latch opens only links in UTF-8"
	}
	domain, err = idna.ToASCII(u.Hostname())
	if err != nil {
		return "", "", "the URL's host is not a valid domain name"
	}
	var b strings.Builder
	b.WriteString(u.Scheme + "://")
	if u.User != nil {
		b.WriteString(u.User.String() + "@")
	}
	if strings.Contains(domain, ":") {
		b.WriteString("[" + domain + "]")
	} else {
		b.WriteString(domain)
	}
	if port := u.Port(); port != "" {
		b.WriteString(":" + port)
	}
	// The rest is taken from the server's text, not from u: u's path is
	// decoded (its %2F would come back as /) and its empty fragment lost.
	rest := raw[len(u.Scheme)+3:]
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[i:]
	} else {
		rest = ""
	}
	for i := range len(rest) {
		if c := rest[i]; c <= ' ' || c >= 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	link = b.String()
	for i := range len(link) {
		if c := link[i]; c <= ' ' || c >= 0x7f {
			return "", "", "latch cannot show this URL in ASCII"
		}
	}
	return link, domain, ""
}
