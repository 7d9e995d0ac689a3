package mcp

import (
	"net/url"

	"latch/mcp/oauth"
)

// PlainRemote reports whether a request to u would cross the network in
// clear: plain http to a host that is not loopback. latch sends no
// credential there, and no OAuth login: https is needed, or http to this
// machine (localhost, 127.0.0.0/8, ::1). See oauth.PlainRemote.
func PlainRemote(u *url.URL) bool { return oauth.PlainRemote(u) }
