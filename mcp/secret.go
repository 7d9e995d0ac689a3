package mcp

import "context"

// ReadSecret reads a credential of latch's own now, the way a server's
// token is read: from the variable env, else the file at path, else what
// command prints (within the token_command bound). field names the config
// fields in errors ("serve.clients.ci.token" for its token_env…), which
// name the source, never the value or a command's output.
func ReadSecret(ctx context.Context, field, env, path string, command []string, getenv func(string) string) (string, error) {
	return resolveSecret(ctx, field, secretSource{env: env, file: path, command: command}, getenv)
}
