package config

import (
	"latch/permissions"
	"latch/words"

	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultTimeout is a server's per-request timeout when its config sets none.
const DefaultTimeout = 60 * time.Second

// DefaultConnectTimeout bounds connect + handshake + first tool list when a
// server's config sets no connect_timeout.
const DefaultConnectTimeout = 15 * time.Second

// The values of a server's "effect": what becomes of its call in doubt
// after a crash (session/effects.go).
const (
	EffectAtMostOnce = "at_most_once" // waits for a person (the default)
	EffectIdempotent = "idempotent"   // runs again on resume, once, through the gate
)

// ThinkLevels are the levels "ollama.think" takes: session.ThinkLevels,
// which a test in the root package checks they match (config does not
// import session).
var ThinkLevels = []string{"low", "medium", "high", "max"}

// Config is the parsed, validated config file (docs/CONFIG.md).
type Config struct {
	Path        string            // the file loaded, "" when none was found
	Model       string            // "model"
	Ollama      OllamaConfig      // "ollama"
	Permissions PermissionsConfig // "permissions"
	Theme       string            // "theme" ("" when unset; the name is not checked here)
	// Mouse is "mouse": latch captures the mouse from the start, so the
	// wheel scrolls the chat (F2 lets go of it, to select text). Off by
	// default: a drag selects text as anywhere else in the terminal.
	Mouse    bool
	Servers  []ServerConfig // "mcpServers" (or its alias "servers"), sorted by name
	Roots    []string       // "roots": directories servers are told of, absolute (~ expanded, relative to the file's folder)
	Warnings []string       // non-fatal notes, e.g. a literal token in the file
	// Foreign is set for a file of another app's shape (foreign.go):
	// latch reads it but never writes into it.
	Foreign bool
	// Inputs are VS Code's "inputs", by id: what to say when asking for
	// the values servers need (ServerConfig.Inputs).
	Inputs map[string]Input
	// Serve is "serve": latch serve's token, TLS and what it exposes.
	Serve ServeConfig
	// SystemPrompt is "system_prompt", and SystemPromptFile
	// "system_prompt_file" (absolute: ~ expanded, relative to the file's
	// folder); Instructions is "instructions", a project's instructions
	// file (e.g. "AGENTS.md") read from the working directory.
	SystemPrompt, SystemPromptFile, Instructions string
	// inputMark is the mark ${input:ID} carries in the servers' strings
	// until FillInputs (expand.go).
	inputMark string
	// Imported are the files "import" named, absolute, whose servers
	// joined (import.go).
	Imported []string
	// ProjectDir is the project folder whose files were looked for, and
	// Project the ones merged (project.go).
	ProjectDir string
	Project    []ProjectFile
}

// OllamaConfig is the "ollama" section of the config file.
type OllamaConfig struct {
	Host string // "host", parsed later the way Ollama parses OLLAMA_HOST
	// Think is "think" given as true or false; nil when unset or a level.
	Think *bool
	// ThinkLevel is "think" given as a level: "low", "medium", "high" or
	// "max" (session.ThinkLevels); "" otherwise.
	ThinkLevel string
	// Truncate is "truncate": true lets Ollama cut a prompt longer than
	// the context without a word, as it does by default; unset or false,
	// latch asks it to refuse such a prompt and says how to make room.
	Truncate bool
	// KeepAlive is "keep_alive" as given: a Go duration string ("5m", "-1s")
	// or, when the file has a JSON integer, its seconds in decimal ("300").
	// "" when unset. See KeepAliveDuration.
	KeepAlive string
	Options   map[string]any // "options", passed to Ollama as is
	// TextToolCalls is "text_tool_calls": whether tool calls a model
	// writes as text in its reply are run (through the gate) as calls;
	// nil when unset, which means true. See TextToolCallsOn.
	TextToolCalls *bool
	// MaxTools is "max_tools": the most tools one request offers the
	// model; above it, each turn offers the most relevant ones (docs/MODELS.md:
	// "Too many tools"). 0 when unset: session.DefaultMaxTools (24, about
	// where small models start to choose badly).
	MaxTools int
	// EmbedModel is "embed_model": an Ollama embedding model (e.g.
	// "nomic-embed-text") by whose embeddings the tools above max_tools
	// are ranked instead of by shared words; "" when unset.
	EmbedModel string
	// CompactAt is "compact_at": the share of the context (above 0,
	// below 1) the last prompt must pass for an automatic compaction; 0
	// when unset (session.DefaultCompactAt). NoCompact: it was false,
	// which turns automatic compaction off.
	CompactAt float64
	NoCompact bool
}

// TextToolCallsOn reports whether tool calls written as text are
// recovered: "text_tool_calls", true unless set to false.
func (o OllamaConfig) TextToolCallsOn() bool {
	return o.TextToolCalls == nil || *o.TextToolCalls
}

// KeepAliveDuration converts KeepAlive to a duration; ok is false when it is
// unset. Negative values mean "keep loaded forever" to Ollama and are
// returned as they are.
func (o OllamaConfig) KeepAliveDuration() (d time.Duration, ok bool) {
	if o.KeepAlive == "" {
		return 0, false
	}
	if d, err := time.ParseDuration(o.KeepAlive); err == nil {
		return d, true
	}
	n, err := strconv.ParseInt(o.KeepAlive, 10, 64)
	if err != nil {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// PermissionsConfig is the "permissions" section of the config file.
type PermissionsConfig struct {
	// Mode is "mode": read_only, ask, approve or auto. It is "" when unset;
	// the caller applies the default (read_only) after flags and env.
	Mode  string
	Allow []string // "allow": namespaced tool names like fs__read_text_file, matched exactly
	// Rules are "rules": argument rules on namespaced tool names or "*"
	// (rules.go).
	Rules []permissions.Rule
}

// ServerConfig is one entry of "mcpServers". Credentials are only named here
// (variable, file, command); they are resolved when the client is built.
type ServerConfig struct {
	Name string
	// FileName is the name another app's file gives the server when
	// latch could not use it as it is (names.go), e.g. Cline's
	// "github.com/owner/repo"; "" when Name is the file's.
	FileName string
	// Project is the project file the server comes from (project.go),
	// "" for the person's own config.
	Project        string
	Transport      string            // "stdio", "http" (streamable HTTP) or "sse", normalised
	Command        string            // stdio
	Args           []string          // stdio
	Env            map[string]string // stdio: added to the environment
	EnvInheritAll  bool              // stdio: "env_inherit": true, every variable of latch's environment
	EnvInherit     []string          // stdio: "env_inherit" as a list: variable names inherited beyond the default few
	Cwd            string            // stdio: ~ expanded, relative to the config file's folder
	URL            string            // http, sse
	Headers        map[string]string // http, sse: static headers
	Token          string            // literal token (warned about)
	TokenEnv       string            // name of a variable holding the token
	TokenFile      string            // ~ expanded, relative to the config file's folder
	TokenCommand   []string          // argv printing the token
	Allow          []string          // the server's own tool names, pre-approved
	Tools          []string          // "tools": the server's own tool names offered to the model; nil = all
	Mode           string            // "" = the global mode
	ApproveArgs    string            // "approve_args": "exact" = `a` approves the call's exact arguments only; "" or "tool" = the whole tool
	Effect         string            // "effect": EffectIdempotent, or EffectAtMostOnce (as "")
	Timeout        time.Duration     // per request, default DefaultTimeout
	ConnectTimeout time.Duration     // default DefaultConnectTimeout
	Disabled       bool              // not connected at start-up
	Protocol       string            // "protocol": "auto" (default, as ""), "2025-11-25" or "2026-07-28"
	// Rules are "rules": argument rules on the server's own tool names
	// (rules.go).
	Rules []permissions.Rule
	// Inputs are the ids of the VS Code ${input:ID} values its strings
	// still hold, in order: asked for at start, or the server is left out
	// (inputs.go). Secrets are the values given, redacted everywhere.
	Inputs  []string
	Secrets []string
	// OAuth (url servers; oauth.go).
	Auth                string   // "oauth", "none" or "" (automatic on a Bearer 401)
	ClientID            string   // a pre-registered client
	ClientSecret        string   // literal (warned about)
	ClientSecretEnv     string   // a variable holding the client secret
	ClientSecretFile    string   // ~ expanded, relative to the config file's folder
	ClientSecretCommand []string // argv printing the client secret
	ClientKeyFile       string   // PEM private key for private_key_jwt
	ClientMetadataURL   string   // a client ID metadata document's https URL
	Scopes              []string // asked for as well
	Grant               string   // "authorization_code" (default), "client_credentials", "enterprise" or "workload"
	Store               string   // "file" (default) or "memory"
	DPoP                bool     // tokens bound to a key of latch's (RFC 9449)
	// Grant "enterprise" (enterprise.go): the identity provider.
	IDPTokenURL            string   // its token endpoint (token exchange)
	IDPClientID            string   // latch's client there
	IDPClientSecret        string   // literal (warned about)
	IDPClientSecretEnv     string   // a variable holding it
	IDPClientSecretFile    string   // ~ expanded, relative to the config file's folder
	IDPClientSecretCommand []string // argv printing it
	IDToken                string   // the person's ID token: literal (warned about)
	IDTokenEnv             string   // a variable holding it
	IDTokenFile            string   // ~ expanded, relative to the config file's folder
	IDTokenCommand         []string // argv printing it
	// Grant "workload" (workload.go): the workload's JWT.
	WorkloadToken        string   // literal (warned about)
	WorkloadTokenEnv     string   // a variable holding it
	WorkloadTokenFile    string   // ~ expanded, relative to the config file's folder
	WorkloadTokenCommand []string // argv printing it
}

// Find returns the path to load: flagPath if non-empty, else
// $LATCH_CONFIG, else $XDG_CONFIG_HOME/latch/config.json
// (XDG_CONFIG_HOME defaulting to ~/.config) if it exists, else "".
// explicit reports whether the path came from the flag or LATCH_CONFIG;
// then a missing file is an error. A ./latch.json is a project file,
// merged onto this one (LoadWithProject), not loaded in its place.
func Find(flagPath string, getenv func(string) string) (path string, explicit bool) {
	home := getenv("HOME")
	if flagPath != "" {
		p, _ := ExpandHome(flagPath, home)
		return p, true
	}
	if env := getenv("LATCH_CONFIG"); env != "" {
		p, _ := ExpandHome(env, home)
		return p, true
	}
	p := DefaultPath(getenv)
	if p == "" {
		return "", false
	}
	if _, err := os.Stat(p); err == nil {
		return p, false
	}
	return "", false
}

// Load reads and validates the file at path and the server files in
// the servers.d folder beside it (serversd.go). path "" reads
// $XDG_CONFIG_HOME/latch/servers.d alone; with no such folder either, the
// Config is empty and valid. getenv is used for token_env checks and ~ expansion (pass
// os.Getenv in production). All problems are returned together, one per
// line (errors.Join), in a fixed order; no error or warning contains a
// credential value.
func Load(path string, getenv func(string) string) (*Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if path == "" {
		return loadServersDOnly(getenv) // serversd.go
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("config %s: file not found", path)
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		dir = filepath.Dir(path)
	}
	l := &loader{path: path, dir: dir, getenv: getenv, serversDir: filepath.Join(dir, serversDName)}
	if !l.trusted(path) { // trust.go
		return nil, errors.Join(l.errs...)
	}
	cfg := l.load(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if len(l.errs) > 0 {
		return nil, errors.Join(l.errs...)
	}
	return cfg, nil
}

var (
	topKeys = []string{"model", "ollama", "permissions", "theme", "mouse", "roots", "mcpServers", "servers", "serve",
		"system_prompt", "system_prompt_file", "instructions", "import"}
	ollamaKeys      = []string{"host", "think", "keep_alive", "options", "text_tool_calls", "max_tools", "embed_model", "truncate", "compact_at"}
	permissionsKeys = []string{"mode", "allow", "rules"}
	modes           = []string{"read_only", "ask", "approve", "auto"}
)

// loader collects the errors and warnings of one Load call.
type loader struct {
	path   string
	dir    string // absolute folder of the file, for relative paths
	getenv func(string) string
	// serversDir is the servers.d folder read with this file; "" for none
	// (a servers.d file itself).
	serversDir string
	errs       []error
	warns      []string
	// foreign is set for a file of another app's shape (foreign.go).
	foreign bool
	ignored []string         // other apps' keys latch has no use for, for the one notice
	inputs  map[string]Input // VS Code's "inputs", by id
	// data is the file as written, std its standard JSON of the same
	// length (jsonc.go): offsets into std are places in data.
	data, std []byte
	// mark is what ${input:ID} carries until the value is given; fromVar
	// names the fields of the server being read that a variable went into
	// (expand.go).
	mark    string
	fromVar map[string]bool
	// imported is set for a file another's "import" names (import.go),
	// project for a project file (project.go).
	imported, project bool
}

// parse reads data as JSON, comments and trailing commas allowed
// (jsonc.go); invalid JSON is an error naming the line and column. The
// text as written and its standard form are kept for the places of later
// errors and for duplicate keys.
func (l *loader) parse(data []byte) (json.RawMessage, bool) {
	std, err := standard(data)
	if err != nil {
		if se := (*syntaxError)(nil); errors.As(err, &se) {
			l.errs = append(l.errs, fmt.Errorf("config %s: invalid JSON: %s", posAt(l.path, data, se.offset), se.msg))
		} else {
			l.errorf("", "", "invalid JSON: %v", err)
		}
		return nil, false
	}
	l.data, l.std = data, std
	var raw json.RawMessage
	if err := json.Unmarshal(std, &raw); err != nil {
		l.errorf("", "", "invalid JSON: %v", err)
		return nil, false
	}
	return raw, true
}

func (l *loader) load(data []byte) *Config {
	raw, ok := l.parse(data)
	if !ok {
		return nil
	}
	top, ok := l.object("", "", raw)
	if !ok {
		return nil
	}
	l.duplicates(json.NewDecoder(bytes.NewReader(l.std)), nil)
	top = l.vscodeSettings(top) // foreign.go
	if l.foreign = isForeign(top); l.foreign {
		l.ignoreForeign("", top, foreignTopKeys)
		l.inputs = l.serverInputs(top["inputs"])
		delete(top, "inputs")
		l.latchSection(top) // import.go
	}
	l.unknownKeys("", "", top, topKeys)

	cfg := &Config{Path: l.path, Foreign: l.foreign, Inputs: l.inputs}
	cfg.Model, _ = l.str("", "model", top["model"])
	if ol, ok := l.object("", "ollama", top["ollama"]); ok {
		l.unknownKeys("", "ollama", ol, ollamaKeys)
		cfg.Ollama.Host, _ = l.str("", "ollama.host", ol["host"])
		cfg.Ollama.Think, cfg.Ollama.ThinkLevel = l.think(ol["think"])
		if t := l.boolean("", "ollama.truncate", ol["truncate"]); t != nil {
			cfg.Ollama.Truncate = *t
		}
		cfg.Ollama.KeepAlive = l.keepAlive("ollama.keep_alive", ol["keep_alive"])
		cfg.Ollama.TextToolCalls = l.boolean("", "ollama.text_tool_calls", ol["text_tool_calls"])
		cfg.Ollama.MaxTools = l.positiveInt("", "ollama.max_tools", ol["max_tools"])
		cfg.Ollama.CompactAt, cfg.Ollama.NoCompact = l.compactAt(ol["compact_at"])
		if raw, set := ol["embed_model"]; set {
			cfg.Ollama.EmbedModel = strings.TrimSpace(l.nonEmpty("", "ollama.embed_model", raw))
		}
		if opts, ok := l.object("", "ollama.options", ol["options"]); ok {
			cfg.Ollama.Options = make(map[string]any, len(opts))
			for k, v := range opts {
				var x any
				_ = json.Unmarshal(v, &x) // already valid JSON
				cfg.Ollama.Options[k] = x
			}
		}
	}
	if perm, ok := l.object("", "permissions", top["permissions"]); ok {
		l.unknownKeys("", "permissions", perm, permissionsKeys)
		cfg.Permissions.Mode = l.mode("", "permissions.mode", perm["mode"])
		cfg.Permissions.Allow = l.allowList("", "permissions.allow", perm["allow"])
		cfg.Permissions.Rules = l.rules("", "permissions.rules", "", perm["rules"])
	}
	cfg.Theme, _ = l.str("", "theme", top["theme"])
	if on := l.boolean("", "mouse", top["mouse"]); on != nil {
		cfg.Mouse = *on
	}
	cfg.Roots = l.roots(top["roots"])
	l.instructions(cfg, top)

	if top["mcpServers"] != nil && top["servers"] != nil {
		l.errorf("", "mcpServers, servers", "both given; use one (servers is VS Code's name for mcpServers)")
	}
	for _, key := range []string{"mcpServers", "servers"} {
		cfg.Servers = append(cfg.Servers, l.servers(key, top[key])...)
	}
	cfg.Servers = l.serversD(cfg.Servers) // serversd.go
	l.imports(top["import"], cfg)         // import.go
	l.checkAllowReadings(cfg.Permissions.Allow, cfg.Servers)
	l.checkRuleReadings(cfg.Permissions.Rules, cfg.Servers)
	cfg.Serve = l.serve(top["serve"], cfg.Servers)
	l.checkRuleClients(cfg) // serveclients.go
	l.ignoredNotice()
	cfg.Warnings = l.warns
	cfg.inputMark = l.mark
	return cfg
}

func (l *loader) keepAlive(field string, raw json.RawMessage) string {
	if raw == nil {
		return ""
	}
	switch k := words.JSONKind(raw); k {
	case "string":
		s, _ := l.str("", field, raw)
		if _, err := time.ParseDuration(s); err != nil {
			l.errorf("", field, "%q is not a duration (e.g. \"5m\", \"1h\") or whole seconds", s)
		}
		return s
	case "number":
		s := string(bytes.TrimSpace(raw))
		if _, err := strconv.ParseInt(s, 10, 64); err != nil {
			l.errorf("", field, "expected a duration string or whole seconds, got %s", s)
		}
		return s
	default:
		l.errorf("", field, "expected a duration string or whole seconds, got %s", k)
		return ""
	}
}

// positiveInt reads a whole number greater than 0; 0 when unset or wrong.
func (l *loader) positiveInt(scope, field string, raw json.RawMessage) int {
	if !l.want(scope, field, raw, "number", "a whole number greater than 0") {
		return 0
	}
	s := string(bytes.TrimSpace(raw))
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		l.errorf(scope, field, "expected a whole number greater than 0, got %s", s)
		return 0
	}
	return n
}

// prefix is the start of every message: the file, the scope (`server "x"`
// inside a server, else ""), the field.
func (l *loader) prefix(scope, field string) string {
	p := "config " + l.path + ": "
	if scope != "" {
		p += scope + ": "
	}
	if field != "" {
		p += field + ": "
	}
	return p
}

func (l *loader) errorf(scope, field, format string, args ...any) {
	l.errs = append(l.errs, errors.New(l.prefix(scope, field)+fmt.Sprintf(format, args...)))
}

func (l *loader) warnf(scope, field, format string, args ...any) {
	l.warns = append(l.warns, l.prefix(scope, field)+fmt.Sprintf(format, args...))
}

// duplicates reports keys given twice in one object, which encoding/json
// would silently resolve to the last one.
func (l *loader) duplicates(dec *json.Decoder, path []string) {
	tok, err := dec.Token()
	if err != nil {
		return
	}
	switch tok {
	case json.Delim('['):
		for dec.More() {
			l.duplicates(dec, path)
		}
		_, _ = dec.Token()
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return
			}
			key, _ := t.(string)
			if seen[key] {
				server, field := "", strings.Join(path, ".")
				if len(path) >= 2 && (path[0] == "mcpServers" || path[0] == "servers") {
					server, field = fmt.Sprintf("server %q", path[1]), strings.Join(path[2:], ".")
				}
				l.errorf(server, field, "duplicate key %q", key)
			}
			seen[key] = true
			l.duplicates(dec, append(path, key))
		}
		_, _ = dec.Token()
	}
}

// lineCol turns a json.SyntaxError offset into a 1-based line and column.
func lineCol(data []byte, offset int64) (line, col int) {
	o := min(int(offset), len(data))
	if o > 0 {
		o-- // the offset is just past the offending byte
	}
	before := data[:o]
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return 1 + bytes.Count(before, []byte("\n")), 1 + utf8.RuneCount(before[lineStart:])
}

// ExpandHome expands a leading "~" or "~/"; ok is false when the path needs
// HOME and it is empty.
func ExpandHome(p, home string) (string, bool) {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p, true
	}
	if home == "" {
		return p, false
	}
	return filepath.Join(home, p[1:]), true
}
