package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"latch/mcp"
	"latch/words"
)

// oauthKeys are the OAuth fields of a server.
var oauthKeys = []string{"auth", "client_id", "client_secret", "client_secret_env", "client_secret_file",
	"client_secret_command", "client_key_file", "client_metadata_url", "scopes", "grant", "store", "dpop",
	"idp_token_url", "idp_client_id", "idp_client_secret", "idp_client_secret_env", "idp_client_secret_file",
	"idp_client_secret_command", "id_token", "id_token_env", "id_token_file", "id_token_command",
	"workload_token", "workload_token_env", "workload_token_file", "workload_token_command"}

// clientSecretKeys are the client secret's sources, at most one.
var clientSecretKeys = []string{"client_secret", "client_secret_env", "client_secret_file", "client_secret_command"}

// oauthGiven lists the OAuth fields present in a server's entry.
func oauthGiven(obj map[string]json.RawMessage) []string {
	var out []string
	for _, k := range oauthKeys {
		if obj[k] != nil {
			out = append(out, k)
		}
	}
	return out
}

// oauth reads and checks a url server's OAuth fields.
func (l *loader) oauth(srv string, obj map[string]json.RawMessage, s *ServerConfig, plainRemote, live bool) {
	o := s
	o.Auth = l.oneOf(srv, "auth", obj["auth"], "oauth", "none")
	o.Grant = l.oneOf(srv, "grant", obj["grant"], mcp.GrantAuthorizationCode, mcp.GrantClientCredentials, mcp.GrantEnterprise, mcp.GrantWorkload)
	o.Store = l.oneOf(srv, "store", obj["store"], mcp.StoreFile, mcp.StoreMemory)
	o.ClientID = l.nonEmpty(srv, "client_id", obj["client_id"])
	o.ClientSecret = l.nonEmpty(srv, "client_secret", obj["client_secret"])
	o.ClientSecretEnv = l.nonEmpty(srv, "client_secret_env", obj["client_secret_env"])
	secretFile := l.nonEmpty(srv, "client_secret_file", obj["client_secret_file"])
	o.ClientSecretCommand, _ = l.strList(srv, "client_secret_command", obj["client_secret_command"])
	keyFile := l.nonEmpty(srv, "client_key_file", obj["client_key_file"])
	o.ClientMetadataURL = l.nonEmpty(srv, "client_metadata_url", obj["client_metadata_url"])
	o.Scopes = l.scopes(srv, obj["scopes"])
	if b := l.boolean(srv, "dpop", obj["dpop"]); b != nil {
		o.DPoP = *b
	}
	given := oauthGiven(obj)
	switch {
	case len(given) == 0:
		return
	case o.Auth == "none" && len(given) > 1:
		l.errorf(srv, "auth", "\"none\" with other OAuth fields (%s): remove them, or the auth", strings.Join(given[1:], ", "))
	case o.Auth != "none" && len(credentialsGiven(obj)) > 0:
		l.errorf(srv, strings.Join(credentialsGiven(obj), ", "), "a server with a token does not log in with OAuth: use one or the other")
	case o.Auth != "none" && plainRemote:
		l.errorf(srv, "url", "OAuth requires https (the host is not loopback)")
	}
	l.clientCredentials(srv, obj, o, live)
	l.enterprise(srv, obj, o, live) // enterprise.go
	l.workload(srv, obj, o, live)   // workload.go
	o.ClientSecretFile = l.checkPath(srv, "client_secret_file", secretFile, live, false)
	o.ClientKeyFile = l.checkPath(srv, "client_key_file", keyFile, live, false)
	if o.ClientMetadataURL != "" {
		if u, err := url.Parse(o.ClientMetadataURL); err != nil || u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") == "" {
			l.errorf(srv, "client_metadata_url", "must be an https URL with a path (the client ID metadata document)")
		}
	}
}

// clientCredentials checks the client's ID, secret and key.
func (l *loader) clientCredentials(srv string, obj map[string]json.RawMessage, o *ServerConfig, live bool) {
	var secrets []string
	for _, k := range clientSecretKeys {
		if obj[k] != nil {
			secrets = append(secrets, k)
		}
	}
	switch {
	case len(secrets) > 1:
		l.errorf(srv, strings.Join(secrets, ", "), "use only one client secret source")
	case (len(secrets) > 0 || obj["client_key_file"] != nil) && o.ClientID == "":
		l.errorf(srv, "client_id", "a client secret or key needs the client_id it belongs to")
	case (o.Grant == mcp.GrantClientCredentials || o.Grant == mcp.GrantEnterprise) && (o.ClientID == "" || (len(secrets) == 0 && obj["client_key_file"] == nil)):
		l.errorf(srv, "grant", "%q needs client_id and a client secret (client_secret_env, _file, _command) or client_key_file", o.Grant)
	}
	if o.ClientSecret != "" {
		l.warnf(srv, "client_secret", "a literal client secret in the config file; prefer client_secret_env, client_secret_file or client_secret_command")
	}
	if o.ClientSecretEnv != "" && !mcp.ValidEnvName(o.ClientSecretEnv) {
		l.errorf(srv, "client_secret_env", "not a variable name (letters, digits and _); the secret itself belongs in a variable, a file or a command")
	} else if o.ClientSecretEnv != "" && live && l.getenv(o.ClientSecretEnv) == "" {
		l.errorf(srv, "client_secret_env", "the environment variable named here is not set or empty")
	}
	if obj["client_secret_command"] != nil && o.ClientSecretCommand != nil && len(o.ClientSecretCommand) == 0 {
		l.errorf(srv, "client_secret_command", "must not be empty; give the argv")
	}
}

// oneOf reads a string field that must be one of values ("" when absent).
func (l *loader) oneOf(srv, field string, raw json.RawMessage, values ...string) string {
	v, ok := l.str(srv, field, raw)
	if !ok || v == "" && raw == nil {
		return ""
	}
	for _, x := range values {
		if v == x {
			return v
		}
	}
	l.errorf(srv, field, "%q is not one of %s", v, strings.Join(values, ", "))
	return ""
}

// scopes reads "scopes": an array of scope names, or one string of them
// separated by spaces.
func (l *loader) scopes(srv string, raw json.RawMessage) []string {
	if raw == nil {
		return nil
	}
	if words.JSONKind(raw) == "string" {
		v, _ := l.str(srv, "scopes", raw)
		return strings.Fields(v)
	}
	list, _ := l.strList(srv, "scopes", raw)
	for i, s := range list {
		if s == "" || strings.ContainsAny(s, " \t\"\\") {
			l.errorf(srv, fmt.Sprintf("scopes[%d]", i), "not a scope name (no spaces, quotes or backslashes)")
		}
	}
	return list
}
