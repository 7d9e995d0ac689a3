// Package permissions is latch's permission gate: the pure logic that decides
// whether the model may call an MCP tool.
//
// The gate follows docs/ARCHITECTURE.md ("The gate"). A call to a tool on the allow-list runs in every
// mode. Any other call is decided by the effective mode of its server (the
// server's override, else the global mode): read_only denies it, ask asks the
// person at the keyboard (or denies it when no one is there), approve parks it
// until someone approves or rejects it, and auto runs it.
//
// The allow-list is the union of four sources: a server's own `allow` (its
// original tool names, matched for that server only), the global
// `permissions.allow`, the `--allow` flag (both namespaced names) and the
// grants made in this session. Matching is exact and case-sensitive: no globs,
// no prefixes, no case folding.
//
// Argument rules (rules*.go) look at a call's arguments: globs, "re:"
// regular expressions and exact values, matched against lexically cleaned
// paths as the server reads them (a relative path resolved against each
// of the call's bases, in NFC, case-folded where the file system folds),
// never the file system. Of the rules that match, deny wins over
// ask and ask over allow; a deny or ask rule wins over the allow-list,
// grants and the mode, and an allow rule allows only in read_only and ask
// mode (docs/PERMISSIONS.md, "Argument rules").
//
// Every entry is decided on the call's server and original tool name, never
// on the model-facing string alone. A namespaced entry names one server's tool
// (server__tool, the tool by its original name, or by its model-facing name
// when that had to be fixed up); it is read against the configured servers
// (Policy.Servers), and one that reads as tools of two servers (x___foo, with
// servers x and x_) allows neither: CheckEntry reports it, so that the config
// can refuse it. A session grant covers the server it was made for.
//
// The gate fails closed. The zero Policy and the zero Gate are read_only with
// an empty allow-list, so they deny every call; an unknown Mode value counts as
// read_only; an empty name is never allow-listed. Decide never changes the
// gate: only the methods the person at the keyboard drives (SetMode, Grant,
// Revoke, RecordDecision, ...) do, so nothing a model or a server puts in a
// Call can change a mode, a grant or a decision.
//
// The package does no I/O and imports nothing of latch's. Waiting for a person
// lives in the session; persisting parked approvals lives in the session log,
// which stores the plain Approval values kept by Approvals.
package permissions
