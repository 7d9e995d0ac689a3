// Package config owns latch's config files: reading them, checking them
// and writing a setting back.
//
// It reads latch's own format and other apps' (Claude Desktop, Claude
// Code, Cursor, VS Code's mcp.json and settings.json, Cline, Roo:
// foreign.go), comments and trailing commas included (jsonc.go), the
// servers.d folder of one file per server (serversd.go), the variables
// of other apps' files (${NAME:-default}, ${env:NAME}, ${workspaceFolder}:
// expand.go) and their env files (envfile.go), VS Code's ${input:ID}
// values (inputs.go), Cline's servers named by their address (names.go),
// the files "import" names and a "latch" section in another app's file
// (import.go), a project folder's latch.json and .mcp.json, merged so
// as only to narrow the gate, their servers off until enabled
// (project.go, projects.go), and refuses a file others may write
// (trust.go). Validation reports every
// problem of a file at once, each as file:line:col with a "did you mean"
// where a key is close to a known one (validate.go). Load merges the main
// file with servers.d and its imports, LoadWithProject the project files
// too; Find says which file to load; Sources which files were read. Target, WithModel and
// WithRule are the byte-exact edits the model picker and the permission
// box's A step write back (write.go, rulesave.go); the caller takes the
// file's lock and replaces it atomically.
//
// It may import mcp (names and checks such as mcp.ValidEnvName),
// permissions (compiled argument rules), themes (JSONKind, Suggest) and
// ui/sanitize; never Bubble Tea, ui, session or gateway. The root package
// turns a Config into session, mcp and gateway options.
package config
