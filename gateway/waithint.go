package gateway

import "latch/session"

// waitHintText tells a client, and through it the person, how to have a
// call refused as not allow-listed wait for a person's approval instead.
const waitHintText = ". To have such calls wait for a person's approval instead of being refused, " +
	"run latch serve with --mode ask or --mode approve (in a chat: /mode ask), " +
	`or set "serve": {"park_unlisted": true} in latch's config`

// waitHint is what follows the refusal of a call that out denied only
// because its tool is not allow-listed in read_only mode: the first such
// refusal of each tool in this gateway's run says how to make its calls
// wait for a person (waitHintText); later ones keep to the short words.
// name is a served tool's, so the tools remembered are bounded.
func (g *Gateway) waitHint(name string, out session.GatewayOutcome) string {
	if !out.Unlisted {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hinted[name] {
		return ""
	}
	if g.hinted == nil {
		g.hinted = map[string]bool{}
	}
	g.hinted[name] = true
	return waitHintText
}
