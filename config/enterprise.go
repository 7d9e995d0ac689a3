package config

import (
	"encoding/json"
	"net/url"
	"strings"

	"latch/mcp"
)

// enterpriseKeys are the fields of grant "enterprise" (enterprise-managed
// authorization): the identity provider's token endpoint, latch's client
// there and its secret, and the person's ID token.
var enterpriseKeys = []string{"idp_token_url", "idp_client_id", "idp_client_secret", "idp_client_secret_env",
	"idp_client_secret_file", "idp_client_secret_command", "id_token", "id_token_env", "id_token_file", "id_token_command"}

// secretFields are a secret's sources as the config names them.
type secretFields struct {
	literal, env, file string
	command            []string
}

// enterprise reads and checks the fields of grant "enterprise"; with
// another grant they are refused.
func (l *loader) enterprise(srv string, obj map[string]json.RawMessage, o *ServerConfig, live bool) {
	o.IDPTokenURL = l.nonEmpty(srv, "idp_token_url", obj["idp_token_url"])
	o.IDPClientID = l.nonEmpty(srv, "idp_client_id", obj["idp_client_id"])
	secret, secretGiven := l.secretSource(srv, "idp_client_secret", obj, live)
	o.IDPClientSecret, o.IDPClientSecretEnv, o.IDPClientSecretFile, o.IDPClientSecretCommand = secret.literal, secret.env, secret.file, secret.command
	idToken, idGiven := l.secretSource(srv, "id_token", obj, live)
	o.IDToken, o.IDTokenEnv, o.IDTokenFile, o.IDTokenCommand = idToken.literal, idToken.env, idToken.file, idToken.command
	if o.Grant != mcp.GrantEnterprise {
		var given []string
		for _, k := range enterpriseKeys {
			if obj[k] != nil {
				given = append(given, k)
			}
		}
		if len(given) > 0 {
			l.errorf(srv, strings.Join(given, ", "), "only for grant \"enterprise\" (enterprise-managed authorization)")
		}
		return
	}
	if o.IDPTokenURL == "" {
		l.errorf(srv, "grant", "\"enterprise\" needs idp_token_url (the identity provider's token endpoint)")
	} else if u, err := url.Parse(o.IDPTokenURL); err != nil || u.Host == "" || u.User != nil ||
		(u.Scheme != "https" && u.Scheme != "http") || mcp.PlainRemote(u) {
		l.errorf(srv, "idp_token_url", "must be an https URL without user info (http only to a loopback host)")
	}
	if len(idGiven) == 0 {
		l.errorf(srv, "grant", "\"enterprise\" needs the person's ID token from the identity provider: id_token_env, id_token_file or id_token_command")
	}
	if len(secretGiven) > 0 && o.IDPClientID == "" {
		l.errorf(srv, "idp_client_id", "an identity provider client secret needs the idp_client_id it belongs to")
	}
}

// secretSource reads a secret's sources: prefix (a literal, warned
// about), prefix_env, prefix_file and prefix_command, at most one; given
// lists the fields present. A value is never quoted in an error.
func (l *loader) secretSource(srv, prefix string, obj map[string]json.RawMessage, live bool) (s secretFields, given []string) {
	envKey, fileKey, cmdKey := prefix+"_env", prefix+"_file", prefix+"_command"
	for _, k := range []string{prefix, envKey, fileKey, cmdKey} {
		if obj[k] != nil {
			given = append(given, k)
		}
	}
	s.literal = l.nonEmpty(srv, prefix, obj[prefix])
	s.env = l.nonEmpty(srv, envKey, obj[envKey])
	s.file = l.checkPath(srv, fileKey, l.nonEmpty(srv, fileKey, obj[fileKey]), live, false)
	s.command, _ = l.strList(srv, cmdKey, obj[cmdKey])
	if len(given) > 1 {
		l.errorf(srv, strings.Join(given, ", "), "use only one %s source", prefix)
	}
	if s.literal != "" {
		l.warnf(srv, prefix, "a literal secret in the config file; prefer %s, %s or %s", envKey, fileKey, cmdKey)
	}
	switch {
	case s.env != "" && !mcp.ValidEnvName(s.env):
		l.errorf(srv, envKey, "not a variable name (letters, digits and _); the secret itself belongs in a variable, a file or a command")
	case s.env != "" && live && l.getenv(s.env) == "":
		l.errorf(srv, envKey, "the environment variable named here is not set or empty")
	}
	if obj[cmdKey] != nil && s.command != nil && (len(s.command) == 0 || s.command[0] == "") {
		l.errorf(srv, cmdKey, "must not be empty; give the argv")
	}
	return s, given
}
