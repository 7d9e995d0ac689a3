// Package config owns latch's config files: reading them, checking them
// and writing a setting back.
//
// It reads latch's own format and other apps' (Claude Desktop, Cursor,
// VS Code's mcp.json, Cline, Roo: foreign.go), the servers.d folder of
// one file per server (serversd.go), VS Code's ${env:NAME} and
// ${workspaceFolder} in other apps' files and their env files
// (envfile.go), VS Code's ${input:ID} values (inputs.go), and refuses a
// file others may write (trust.go). Validation reports every
// problem of a file at once, each as file:line:col with a "did you mean"
// where a key is close to a known one (validate.go). Load merges the main
// file with servers.d; Find says which file to load. Target, WithModel and
// WithRule are the byte-exact edits the model picker and the permission
// box's A step write back (write.go, rulesave.go); the caller takes the
// file's lock and replaces it atomically.
//
// It may import mcp (names and checks such as mcp.ValidEnvName),
// permissions (compiled argument rules), themes (JSONKind, Suggest) and
// ui/sanitize; never Bubble Tea, ui, session or gateway. The root package
// turns a Config into session, mcp and gateway options.
package config
