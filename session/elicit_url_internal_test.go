package session

import (
	"net/url"
	"strings"
	"testing"

	"latch/mcp"
)

// TestElicitURLInASCII: a server's link is shown, opened and copied as one
// string in printable ASCII: its host in punycode, every other byte that
// is not printable ASCII or not allowed in a URL percent-encoded as the
// server sent it, so it is still the server's resource (its escapes kept
// as they are). A link latch does not open is declined, saying why.
func TestElicitURLInASCII(t *testing.T) {
	for _, c := range []struct{ in, url, domain, reason string }{
		{in: "https://sign.example.com/device?name=\u0430", url: "https://sign.example.com/device?name=%D0%B0", domain: "sign.example.com"},
		{in: "https://sign.example.com/device?code=42\u202e&x=\u2066y", url: "https://sign.example.com/device?code=42%E2%80%AE&x=%E2%81%A6y", domain: "sign.example.com"},
		{in: "https://b\u00fccher.example/\u043f/a%2Fb?q=a b&r=\"<>\\^`{|}#f g\u200b", domain: "xn--bcher-kva.example",
			url: "https://xn--bcher-kva.example/%D0%BF/a%2Fb?q=a%20b&r=%22%3C%3E%5C%5E%60%7B%7C%7D#f%20g%E2%80%8B"},
		{in: "HTTPS://user:p%20w@auth.example:8443/a?b=%zz&c=%E2%80%AE#", url: "https://user:p%20w@auth.example:8443/a?b=%zz&c=%E2%80%AE#", domain: "auth.example"},
		{in: "http://[::1]:8080/x?y", url: "http://[::1]:8080/x?y", domain: "::1"},
		{in: "https://example.com", url: "https://example.com", domain: "example.com"},
		{in: "https://a.example/?q=\xff", reason: "latch opens only links in UTF-8"},
		{in: "https://a\xff.example/", reason: "latch opens only links in UTF-8"},
		{in: "ftp://a.example/", reason: "latch opens only http and https URLs with a host"},
		{in: "https://a.example/\x1b[2J", reason: "latch opens only http and https URLs with a host"},
		{in: "https:/a.example/", reason: "latch opens only http and https URLs with a host"},
	} {
		var ev ElicitationEvent
		reason := describeElicit(&ev, mcp.ElicitRequest{Mode: ElicitURL, URL: c.in})
		if reason != c.reason || reason != "" {
			if reason != c.reason {
				t.Errorf("%q: declined for %q, want %q", c.in, reason, c.reason)
			}
			continue
		}
		if ev.URL != c.url || ev.Domain != c.domain {
			t.Errorf("%q:\n got %q (domain %q)\nwant %q (domain %q)", c.in, ev.URL, ev.Domain, c.url, c.domain)
		}
		for i := range len(ev.URL) {
			if b := ev.URL[i]; b <= ' ' || b >= 0x7f {
				t.Errorf("%q: byte %#x in the link %q", c.in, b, ev.URL)
			}
		}
		if shown := Display(&ev).(*ElicitationEvent).URL; shown != ev.URL {
			t.Errorf("%q: shown as %q, not as the link %q", c.in, shown, ev.URL)
		}
		// The same resource: path, query and fragment decode to the
		// server's bytes.
		in, _ := url.Parse(c.in)
		out, err := url.Parse(ev.URL)
		if err != nil {
			t.Fatalf("%q: the link %q does not parse: %v", c.in, ev.URL, err)
		}
		q1, _ := url.QueryUnescape(strings.ReplaceAll(in.RawQuery, "+", "%2B"))
		q2, _ := url.QueryUnescape(strings.ReplaceAll(out.RawQuery, "+", "%2B"))
		if out.Path != in.Path || q1 != q2 || out.Fragment != in.Fragment {
			t.Errorf("%q: the link %q is another resource: %q %q %q", c.in, ev.URL, out.Path, q2, out.Fragment)
		}
	}
}
