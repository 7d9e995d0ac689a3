package oauth

import (
	"net/netip"
	"net/url"
	"strings"
)

// PlainRemote reports whether a request to u would cross the network in
// clear: plain http to a host that is not loopback. latch sends no
// credential there, and no OAuth login: https is needed, or http to this
// machine (localhost, 127.0.0.0/8, ::1).
func PlainRemote(u *url.URL) bool {
	return strings.EqualFold(u.Scheme, "http") && !isLoopback(u.Hostname())
}

// isLoopback reports whether host is localhost, in 127.0.0.0/8 or ::1.
func isLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
