package config

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"latch/mcp"
	"latch/permissions"
	"latch/words"
)

var serverKeys = []string{
	"command", "args", "env", "env_inherit", "cwd", "url", "transport", "type", "headers",
	"token", "token_env", "token_file", "token_command",
	"allow", "rules", "tools", "mode", "timeout", "connect_timeout", "disabled", "protocol",
	"approve_args", "effect",
	"auth", "client_id", "client_secret", "client_secret_env", "client_secret_file", "client_secret_command",
	"client_key_file", "client_metadata_url", "scopes", "grant", "store", "dpop",
	"idp_token_url", "idp_client_id", "idp_client_secret", "idp_client_secret_env", "idp_client_secret_file",
	"idp_client_secret_command", "id_token", "id_token_env", "id_token_file", "id_token_command",
	"workload_token", "workload_token_env", "workload_token_file", "workload_token_command",
}

// credentialKeys are the credential sources, at most one per server.
var credentialKeys = []string{"token", "token_env", "token_file", "token_command"}

const transportValues = `stdio, http, sse; http is also accepted as streamable-http, streamable_http, streamable, streamableHttp`

// servers validates the "mcpServers" (or "servers") object, sorted by name.
func (l *loader) servers(field string, raw json.RawMessage) []ServerConfig {
	obj, ok := l.object("", field, raw)
	if !ok {
		return nil
	}
	keys := slices.Sorted(maps.Keys(obj))
	var names map[string]string
	if l.foreign {
		names = safeNames(keys) // names.go
	}
	var out []ServerConfig
	for _, key := range keys {
		name := key
		if n, ok := names[key]; ok && n != key {
			name = n
			l.warnf(fmt.Sprintf("server %q", shortKey(key)), "", "called %q in latch (its tools are %s__…): latch's server names keep to [a-z0-9_-]", name, name)
		}
		s := l.server(key, name, obj[key])
		if name != key {
			s.FileName = key
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b ServerConfig) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// server reads one server's entry, the file's key for it, which latch
// calls name: its fields, then the transport it uses, then the checks of
// a stdio or a url server.
func (l *loader) server(key, name string, raw json.RawMessage) ServerConfig {
	s := ServerConfig{Name: name, Timeout: DefaultTimeout, ConnectTimeout: DefaultConnectTimeout}
	srv := fmt.Sprintf("server %q", shortKey(key)) // the scope of every message below
	if !validServerName(name) {
		l.errorf(srv, "name", "must match [a-z0-9_-]{1,32}")
	}
	obj, ok := l.object(srv, "", raw)
	if !ok {
		return s
	}
	if l.foreign {
		l.foreignServer(name, srv, obj) // foreign.go
	}
	l.unknownKeys(srv, "", obj, serverKeys)
	f := l.serverFields(srv, obj, &s)
	l.fromVar = nil
	if l.foreign {
		l.fromVar = l.expandVars(key, srv, &s, &f) // expand.go
	}
	// Checks that depend on the machine (variables, files, PATH) are left
	// for /connect when the server is disabled.
	live := !s.Disabled && !l.project
	l.serverTransport(srv, obj, &s, f)
	if s.Transport == "stdio" {
		l.stdioServer(srv, obj, &s, f.cwd, live)
	} else {
		l.urlServer(srv, obj, &s, f, live)
	}
	return s
}

// rawServerFields are the fields server checks further before they go
// into the ServerConfig.
type rawServerFields struct {
	cwd, url, transport, typ, tokenFile string
}

// serverFields reads every field of a server's entry into s, each checked
// for its type; what needs more checking is returned.
func (l *loader) serverFields(srv string, obj map[string]json.RawMessage, s *ServerConfig) rawServerFields {
	s.Command = l.nonEmpty(srv, "command", obj["command"])
	s.Args, _ = l.strList(srv, "args", obj["args"])
	s.Env = l.strMap(srv, "env", obj["env"])
	s.EnvInheritAll, s.EnvInherit = l.envInherit(srv, "env_inherit", obj["env_inherit"])
	f := rawServerFields{
		cwd:       l.nonEmpty(srv, "cwd", obj["cwd"]),
		url:       l.nonEmpty(srv, "url", obj["url"]),
		transport: l.transport(srv, "transport", obj["transport"]),
		typ:       l.transport(srv, "type", obj["type"]),
	}
	s.Headers = l.strMap(srv, "headers", obj["headers"])
	s.Token = l.nonEmpty(srv, "token", obj["token"])
	s.TokenEnv = l.nonEmpty(srv, "token_env", obj["token_env"])
	f.tokenFile = l.nonEmpty(srv, "token_file", obj["token_file"])
	s.TokenCommand, _ = l.strList(srv, "token_command", obj["token_command"])
	s.Allow = l.allowList(srv, "allow", obj["allow"])
	l.checkServerKinds(srv, s.Allow)
	if obj["rules"] != nil {
		s.Rules = l.rules(srv, "rules", s.Name, obj["rules"])
	}
	s.Tools = l.toolList(srv, "tools", obj["tools"])
	s.Mode = l.mode(srv, "mode", obj["mode"])
	s.ApproveArgs = l.oneOf(srv, "approve_args", obj["approve_args"], "tool", "exact")
	s.Effect = l.oneOf(srv, "effect", obj["effect"], EffectAtMostOnce, EffectIdempotent)
	s.Timeout = l.duration(srv, "timeout", obj["timeout"], DefaultTimeout)
	s.ConnectTimeout = l.duration(srv, "connect_timeout", obj["connect_timeout"], DefaultConnectTimeout)
	if b := l.boolean(srv, "disabled", obj["disabled"]); b != nil {
		s.Disabled = *b
	}
	s.Protocol = l.oneOf(srv, "protocol", obj["protocol"], mcp.ProtocolAuto, mcp.ProtocolLegacy, mcp.ProtocolModern)
	return f
}

// serverTransport decides s.Transport: explicit (transport or its alias
// type), else implied by command (stdio) or url (http).
func (l *loader) serverTransport(srv string, obj map[string]json.RawMessage, s *ServerConfig, f rawServerFields) {
	if f.transport != "" && f.typ != "" && f.transport != f.typ {
		l.errorf(srv, "type", "%q conflicts with transport %q", f.typ, f.transport)
	}
	s.Transport = cmp.Or(f.transport, f.typ)
	hasCmd, hasURL := obj["command"] != nil, obj["url"] != nil
	switch {
	case hasCmd && hasURL:
		l.errorf(srv, "command, url", "both given; a server has a command (stdio) or a url (http/sse), not both")
	case !hasCmd && !hasURL:
		l.errorf(srv, "", "needs command (stdio) or url (http/sse)")
	case s.Transport == "stdio" && hasURL:
		l.errorf(srv, "transport", "\"stdio\" needs command, not url")
	case (s.Transport == "http" || s.Transport == "sse") && hasCmd:
		l.errorf(srv, "transport", "%q needs url, not command", s.Transport)
	case s.Transport == "" && hasCmd:
		s.Transport = "stdio"
	case s.Transport == "" && hasURL:
		s.Transport = "http"
	}
}

// credentialsGiven lists the credential fields present in a server's entry.
func credentialsGiven(obj map[string]json.RawMessage) []string {
	var creds []string
	for _, k := range credentialKeys {
		if obj[k] != nil {
			creds = append(creds, k)
		}
	}
	return creds
}

// stdioServer checks what a stdio server must not have (headers,
// credentials) and its working folder.
func (l *loader) stdioServer(srv string, obj map[string]json.RawMessage, s *ServerConfig, cwd string, live bool) {
	if len(s.Headers) > 0 {
		l.errorf(srv, "headers", "only for url (http/sse) servers")
	}
	if creds := credentialsGiven(obj); len(creds) > 0 {
		l.errorf(srv, strings.Join(creds, ", "), "credentials are only for url servers; use env for stdio servers")
	}
	if keys := oauthGiven(obj); len(keys) > 0 {
		l.errorf(srv, strings.Join(keys, ", "), "OAuth is only for url servers")
	}
	s.Cwd = l.checkPath(srv, "cwd", cwd, live, true)
}

// urlServer checks an HTTP or SSE server: no stdio fields, its url, its
// headers and its credential.
func (l *loader) urlServer(srv string, obj map[string]json.RawMessage, s *ServerConfig, f rawServerFields, live bool) {
	if obj["url"] != nil && obj["command"] == nil {
		for _, x := range []struct {
			key string
			set bool
		}{{"args", len(s.Args) > 0}, {"env", len(s.Env) > 0}, {"env_inherit", obj["env_inherit"] != nil}, {"cwd", f.cwd != ""}} {
			if x.set {
				l.errorf(srv, x.key, "only for stdio (command) servers")
			}
		}
	}
	u := l.checkURL(srv, f.url)
	s.URL = f.url
	plainRemote := u != nil && mcp.PlainRemote(u)
	l.headers(srv, s.Headers, plainRemote, u)
	creds := credentialsGiven(obj)
	if len(creds) > 1 {
		l.errorf(srv, strings.Join(creds, ", "), "use only one credential source")
	}
	if len(creds) > 0 && plainRemote {
		l.errorf(srv, "url", "credentials require https (host %q is not loopback)", u.Hostname())
	}
	if s.Token != "" {
		l.warnf(srv, "token", "a literal token in the config file; prefer token_env, token_file or token_command")
	}
	l.tokenEnv(srv, s.TokenEnv, live)
	s.TokenFile = l.checkPath(srv, "token_file", f.tokenFile, live, false)
	if obj["token_command"] != nil && s.TokenCommand != nil {
		l.tokenCommand(srv, s.TokenCommand, live)
	}
	if s.Transport == "sse" && s.Protocol == mcp.ProtocolModern {
		l.errorf(srv, "protocol", "%q has no sse transport (use http)", s.Protocol)
	}
	l.oauth(srv, obj, s, plainRemote, live) // oauth.go
}

// headers checks a url server's static headers; one that carries a
// credential is refused over plain http to another machine, like a token.
// Values are never quoted.
func (l *loader) headers(srv string, h map[string]string, plainRemote bool, u *url.URL) {
	for _, k := range slices.Sorted(maps.Keys(h)) {
		if !validHeaderName(k) {
			l.errorf(srv, "headers", "%q is not a valid header name", k)
		}
		if strings.ContainsAny(h[k], "\r\n\x00") {
			l.errorf(srv, "headers."+k, "value contains a line break or NUL")
		}
		switch {
		case !credentialHeader(k):
		case plainRemote:
			l.errorf(srv, "headers."+k, "credentials require https (host %q is not loopback)", u.Hostname())
		case l.fromVar["headers."+k]:
			// from a variable or typed by the person at start, not in the file
		default:
			l.warnf(srv, "headers."+k, "a literal credential in the config file; prefer token_env, token_file or token_command")
		}
	}
}

// tokenEnv checks a token_env name, and (live) that its variable is set.
// A name that may be the token itself is never repeated.
func (l *loader) tokenEnv(srv, name string, live bool) {
	switch {
	case name == "":
	case !mcp.ValidEnvName(name):
		l.errorf(srv, "token_env", "not a variable name (letters, digits and _); the token itself belongs in a variable, a file or a command")
	case !live || l.getenv(name) != "":
	case mcp.PlainEnvName(name):
		l.errorf(srv, "token_env", "environment variable %s is not set or empty", name)
	default:
		l.errorf(srv, "token_env", "the environment variable named here is not set or empty (the name is not repeated: it may be the token itself)")
	}
}

// tokenCommand checks a token_command argv, and (live) that it exists.
func (l *loader) tokenCommand(srv string, argv []string, live bool) {
	switch {
	case len(argv) == 0:
		l.errorf(srv, "token_command", "must not be empty; give the argv, e.g. [\"gcloud\", \"auth\", \"print-access-token\"]")
	case argv[0] == "":
		l.errorf(srv, "token_command", "the first element must be a command")
	case live:
		if _, err := exec.LookPath(argv[0]); err != nil {
			l.errorf(srv, "token_command", "command not found: %s", argv[0])
		}
	}
}

// envInherit parses "env_inherit": true (inherit every variable), false
// (the default few), or an array of variable names inherited as well.
// Names are not quoted in errors: a misplaced secret must not be echoed.
func (l *loader) envInherit(scope, field string, raw json.RawMessage) (all bool, names []string) {
	switch k := words.JSONKind(raw); {
	case raw == nil:
		return false, nil
	case k == "boolean":
		return *l.boolean(scope, field, raw), nil
	case k != "array":
		l.errorf(scope, field, "expected true, false or an array of variable names, got %s", k)
		return false, nil
	}
	names, _ = l.strList(scope, field, raw)
	for i, n := range names {
		switch {
		case n == "":
			l.errorf(scope, fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		case !mcp.ValidEnvName(n):
			l.errorf(scope, fmt.Sprintf("%s[%d]", field, i), "not a variable name (letters, digits and _, not starting with a digit)")
		}
	}
	return false, names
}

// credentialHeader reports whether a header named k carries a credential.
func credentialHeader(k string) bool {
	return strings.EqualFold(k, "Authorization") || strings.EqualFold(k, "Proxy-Authorization")
}

// roots reads "roots": directories that must exist, made absolute against
// the config file's folder.
func (l *loader) roots(raw json.RawMessage) []string {
	list, ok := l.strList("", "roots", raw)
	if !ok {
		return nil
	}
	var out []string
	for i, d := range list {
		field := fmt.Sprintf("roots[%d]", i)
		if strings.TrimSpace(d) == "" {
			l.errorf("", field, "empty directory")
			continue
		}
		out = append(out, filepath.Clean(l.checkPath("", field, d, true, true)))
	}
	return out
}

// checkPath expands ~ and makes p absolute against the config file's folder; when
// live it checks that p exists and is a folder (dir) or a readable file.
func (l *loader) checkPath(scope, field, p string, live, dir bool) string {
	if p == "" {
		return ""
	}
	p, ok := ExpandHome(p, l.getenv("HOME"))
	if !ok {
		l.errorf(scope, field, "%s: ~ needs HOME, which is not set", p)
		return p
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(l.dir, p)
	}
	if !live {
		return p
	}
	what := "file"
	if dir {
		what = "directory"
	}
	fi, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		l.errorf(scope, field, "%s not found: %s", what, p)
	case err != nil:
		l.errorf(scope, field, "cannot read %s: %v", p, errors.Unwrap(err))
	case dir && !fi.IsDir():
		l.errorf(scope, field, "not a directory: %s", p)
	case !dir && fi.IsDir():
		l.errorf(scope, field, "is a directory, not a file: %s", p)
	case !dir:
		f, err := os.Open(p) // readable? the content is read only when the client is built
		if err != nil {
			l.errorf(scope, field, "cannot read %s: %v", p, errors.Unwrap(err))
			return p
		}
		_ = f.Close() // opened only to see that it can be
	}
	return p
}

// checkURL never quotes the URL: it may carry a secret in its query.
func (l *loader) checkURL(scope, raw string) *url.URL {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		l.errorf(scope, "url", "not a valid URL")
		return nil
	case u.Scheme != "http" && u.Scheme != "https":
		l.errorf(scope, "url", "scheme must be http or https")
		return nil
	case u.Host == "":
		l.errorf(scope, "url", "missing host")
		return nil
	case u.User != nil:
		l.errorf(scope, "url", "must not contain user info; use token_env, token_file, token_command or headers")
	}
	return u
}

func (l *loader) transport(scope, field string, raw json.RawMessage) string {
	v, ok := l.str(scope, field, raw)
	if !ok {
		return ""
	}
	switch strings.ToLower(v) {
	case "stdio":
		return "stdio"
	case "http", "streamable-http", "streamable_http", "streamable", "streamablehttp":
		return "http"
	case "sse":
		return "sse"
	}
	l.errorf(scope, field, "%q is not a transport (%s)", v, transportValues)
	return ""
}

func (l *loader) mode(scope, field string, raw json.RawMessage) string {
	m, ok := l.str(scope, field, raw)
	if ok && !slices.Contains(modes, m) {
		l.errorf(scope, field, "%q is not a mode (%s)", m, strings.Join(modes, ", "))
		return ""
	}
	return m
}

func (l *loader) allowList(scope, field string, raw json.RawMessage) []string {
	list, _ := l.strList(scope, field, raw)
	for i, a := range list {
		switch {
		case a == "":
			l.errorf(scope, fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		case strings.ContainsAny(a, "*?["):
			l.errorf(scope, field, "%q: matching is exact; list each tool", a)
		}
	}
	return list
}

// toolList reads a server's "tools": its own tool names, offered to the
// model, matched exactly. Whether the server has them is known only once
// it is connected: /tools warns of names it has no tool of.
func (l *loader) toolList(scope, field string, raw json.RawMessage) []string {
	list, _ := l.strList(scope, field, raw)
	seen := map[string]bool{}
	for i, a := range list {
		switch {
		case a == "":
			l.errorf(scope, fmt.Sprintf("%s[%d]", field, i), "must not be empty")
		case strings.ContainsAny(a, "*?["):
			l.errorf(scope, field, "%q: matching is exact; list each tool", a)
		case seen[a]:
			l.warnf(scope, field, "%q is listed twice", a)
		}
		seen[a] = true
	}
	return list
}

// checkAllowReadings reports each permissions.allow entry that reads as
// tools of two or more servers: with servers x and x_, "x___foo" is tool
// "_foo" of x or tool "foo" of x_, and the gate would allow neither.
func (l *loader) checkAllowReadings(entries []string, servers []ServerConfig) {
	names := make([]string, len(servers))
	for i, s := range servers {
		names[i] = s.Name
	}
	for _, e := range entries {
		if err := permissions.CheckEntry(e, names); err != nil {
			l.errorf("", "permissions.allow", "%v", err)
		}
		if err := permissions.CheckKindEntry(e, names); err != nil {
			l.errorf("", "permissions.allow", "%v", err)
		}
	}
}

func (l *loader) duration(scope, field string, raw json.RawMessage, def time.Duration) time.Duration {
	if raw == nil {
		return def
	}
	if k := words.JSONKind(raw); k != "string" {
		l.errorf(scope, field, "expected a duration string like \"60s\", got %s", k)
		return def
	}
	s, _ := l.str(scope, field, raw)
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		l.errorf(scope, field, "%q is not a duration (e.g. \"30s\", \"2m\")", s)
		return def
	case d <= 0:
		l.errorf(scope, field, "must be greater than 0")
		return def
	}
	return d
}

// unknownKeys reports keys of obj not in valid, suggesting a close one.
func (l *loader) unknownKeys(scope, field string, obj map[string]json.RawMessage, valid []string) {
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if slices.Contains(valid, k) {
			continue
		}
		msg := fmt.Sprintf("unknown key %q", k)
		if s := cmp.Or(words.Suggest(k, valid), foreignHint(k, valid)); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		l.errorf(scope, field, "%s", msg)
	}
}

// want reports whether raw is present and of the kind; a wrong kind is an
// error naming the field and the expected type (never the value).
func (l *loader) want(scope, field string, raw json.RawMessage, kind, expected string) bool {
	if raw == nil {
		return false
	}
	if k := words.JSONKind(raw); k != kind {
		l.errorf(scope, field, "expected %s, got %s", expected, k)
		return false
	}
	return true
}

func (l *loader) str(scope, field string, raw json.RawMessage) (string, bool) {
	if !l.want(scope, field, raw, "string", "a string") {
		return "", false
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s, true
}

// nonEmpty is str for fields where "" is a mistake.
func (l *loader) nonEmpty(scope, field string, raw json.RawMessage) string {
	s, ok := l.str(scope, field, raw)
	if ok && strings.TrimSpace(s) == "" {
		l.errorf(scope, field, "must not be empty")
	}
	return s
}

func (l *loader) boolean(scope, field string, raw json.RawMessage) *bool {
	if !l.want(scope, field, raw, "boolean", "true or false") {
		return nil
	}
	var b bool
	_ = json.Unmarshal(raw, &b)
	return &b
}

// think reads ollama.think: true, false, or a thinking level.
func (l *loader) think(raw json.RawMessage) (*bool, string) {
	if raw == nil {
		return nil, ""
	}
	if words.JSONKind(raw) == "boolean" {
		return l.boolean("", "ollama.think", raw), ""
	}
	levels := strings.Join(ThinkLevels, ", ")
	if k := words.JSONKind(raw); k != "string" {
		l.errorf("", "ollama.think", "expected true, false or a level (%s), got %s", levels, k)
		return nil, ""
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	if !slices.Contains(ThinkLevels, s) {
		l.errorf("", "ollama.think", "expected true, false or a level (%s), got %q", levels, s)
		return nil, ""
	}
	return nil, s
}

func (l *loader) object(scope, field string, raw json.RawMessage) (map[string]json.RawMessage, bool) {
	if !l.want(scope, field, raw, "object", "an object") {
		return nil, false
	}
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(raw, &obj)
	return obj, true
}

func (l *loader) strList(scope, field string, raw json.RawMessage) ([]string, bool) {
	if !l.want(scope, field, raw, "array", "an array of strings") {
		return nil, false
	}
	var items []json.RawMessage
	_ = json.Unmarshal(raw, &items)
	out, ok := make([]string, 0, len(items)), true
	for i, it := range items {
		s, good := l.str(scope, fmt.Sprintf("%s[%d]", field, i), it)
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

func (l *loader) strMap(scope, field string, raw json.RawMessage) map[string]string {
	obj, ok := l.object(scope, field, raw)
	if !ok {
		return nil
	}
	out := make(map[string]string, len(obj))
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if s, ok := l.str(scope, field+"."+k, obj[k]); ok {
			out[k] = s
		}
	}
	return out
}

func validServerName(name string) bool {
	if len(name) == 0 || len(name) > 32 {
		return false
	}
	for _, c := range name {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// validHeaderName reports whether k is an RFC 9110 token.
func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for _, c := range k {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			strings.ContainsRune("!#$%&'*+-.^_`|~", c)
		if !ok {
			return false
		}
	}
	return true
}

// checkServerKinds reports entries of a server's own allow that name a
// request kind other than "@sampling" (see permissions.SamplingEntry).
func (l *loader) checkServerKinds(scope string, allow []string) {
	for _, a := range allow {
		if err := permissions.CheckServerKindEntry(a); err != nil {
			l.errorf(scope, "allow", "%v", err)
		}
	}
}

// compactAt reads ollama.compact_at: a share of the context above 0 and
// below 1 (0.8 is 80 %), or false (no automatic compaction). Unset: 0,
// false (the default applies).
func (l *loader) compactAt(raw json.RawMessage) (at float64, off bool) {
	const field = "ollama.compact_at"
	if raw == nil {
		return 0, false
	}
	switch words.JSONKind(raw) {
	case "boolean":
		var b bool
		_ = json.Unmarshal(raw, &b)
		if b {
			l.errorf("", field, "expected a share of the context between 0 and 1 (e.g. 0.8 for 80 %%), or false to turn automatic compaction off; got true")
		}
		return 0, !b
	case "number":
		_ = json.Unmarshal(raw, &at)
		if at <= 0 || at >= 1 {
			l.errorf("", field, "expected a share of the context between 0 and 1 (e.g. 0.8 for 80 %%), or false; got %s",
				strings.TrimSpace(string(raw)))
			return 0, false
		}
		return at, false
	}
	l.errorf("", field, "expected a share of the context between 0 and 1 (e.g. 0.8), or false; got %s", words.JSONKind(raw))
	return 0, false
}
