package mcp

// DestructiveUnsaid reports whether t counts as destructive only by the
// MCP spec's default: its server gave no destructiveHint (nor called it
// read-only), so no one said it changes or deletes data.
func (t Tool) DestructiveUnsaid() bool {
	return t.Destructive && t.Annotations.DestructiveHint == nil
}
