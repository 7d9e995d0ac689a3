package config

import (
	"encoding/json"
	"strings"

	"latch/mcp"
)

// workload reads and checks the fields of grant "workload" (workload
// identity: the workload's JWT from its platform, from one source); with
// another grant they are refused.
func (l *loader) workload(srv string, obj map[string]json.RawMessage, o *ServerConfig, live bool) {
	jwt, given := l.secretSource(srv, "workload_token", obj, live)
	o.WorkloadToken, o.WorkloadTokenEnv, o.WorkloadTokenFile, o.WorkloadTokenCommand = jwt.literal, jwt.env, jwt.file, jwt.command
	switch {
	case o.Grant != mcp.GrantWorkload && len(given) > 0:
		l.errorf(srv, strings.Join(given, ", "), "only for grant \"workload\" (workload identity)")
	case o.Grant != mcp.GrantWorkload:
	case o.ClientID == "":
		l.errorf(srv, "grant", "\"workload\" needs client_id (the client registered at the authorization server)")
	case len(given) == 0:
		l.errorf(srv, "grant", "\"workload\" needs the workload's JWT: workload_token_env, workload_token_file or workload_token_command")
	}
}
