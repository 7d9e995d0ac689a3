// Package oauth is latch's OAuth client for MCP servers (MCP
// authorization): discovery of a server's authorization server, client
// registration, the browser login and its loopback callback listener,
// the headless grants (client_credentials, enterprise-managed
// authorization, workload identity), token storage, DPoP, and the HTTP
// transport that adds a server's access token and refreshes it or logs
// in again when the server asks.
//
// It imports only the standard library and mcp-go's OAuth helpers
// (client/transport). Package mcp imports it, never the other way round:
// what the manager holds per server (a State), how a 401 or /login
// starts a login, and the events a login causes stay in mcp, which hands
// in its redactor and its way of reading secrets (Options).
package oauth
