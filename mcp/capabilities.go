package mcp

import (
	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

// What each side of a connection offers. A server offers tools, prompts,
// resources, logging and completions; latch, as the client, answers a
// server's own requests (roots, elicitation, sampling) only where the transport can carry them,
// and declares exactly the capabilities it answers.

// serverOffers names what a server's capabilities offer, in a fixed order.
func serverOffers(c mcpgo.ServerCapabilities) []string {
	var out []string
	add := func(on bool, name string) {
		if on {
			out = append(out, name)
		}
	}
	add(c.Tools != nil, "tools")
	add(c.Prompts != nil, "prompts")
	add(c.Resources != nil, "resources")
	add(c.Logging != nil, "logging")
	add(c.Completions != nil, "completions")
	return out
}

// clientRequests names the server requests latch would answer for any
// server, given the manager's options: roots only when some are given,
// elicitation and sampling when the manager has their handlers.
func (m *Manager) clientRequests() []string {
	var out []string
	if len(m.Roots()) > 0 {
		out = append(out, "roots")
	}
	if m.opts.Elicit != nil {
		out = append(out, "elicitation")
	}
	if m.opts.Sample != nil {
		out = append(out, "sampling")
	}
	return out
}

// declared names the client capabilities c declared in its handshake.
func (c *conn) declared() []string {
	var out []string
	if c.roots {
		out = append(out, "roots")
	}
	if c.elicit {
		out = append(out, "elicitation")
	}
	if c.sample {
		out = append(out, "sampling")
	}
	return out
}

// requestsOf fills st's Offers, Answers and NotOffered for connection c.
// On legacy SSE, the requests latch would answer are not offered: the
// transport has no way to carry them to the client.
func (m *Manager) requestsOf(st *Status, c *conn, caps mcpgo.ServerCapabilities, transport string) {
	st.Offers = serverOffers(caps)
	st.Answers = c.declared()
	st.NotOffered = nil
	if !offersRequests(transport) {
		st.NotOffered = m.clientRequests()
	}
}

// offersRequests reports whether a transport carries a server's requests
// to the client: every one but legacy SSE, whose client transport has no
// request handler.
func offersRequests(transport string) bool { return transport != TransportSSE }
