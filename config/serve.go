package config

import (
	"encoding/json"
	"slices"
	"strings"
	"time"
)

// ServeConfig is the "serve" section of the config file: how latch serve
// serves the gated tools to other MCP clients.
type ServeConfig struct {
	TokenEnv    string   // "token_env": the variable holding the bearer token
	TokenFile   string   // "token_file": a file holding it; ~ expanded, relative to the config file's folder
	AllowRemote bool     // "allow_remote": --listen may bind a non-loopback address (with TLS)
	TLSCert     string   // "tls_cert": PEM certificate, as TokenFile
	TLSKey      string   // "tls_key": its PEM key, as TokenFile
	Expose      []string // "expose": servers or server__tool names served; nil serves every tool
	// ParkUnlisted ("park_unlisted"): a call of an unlisted tool in
	// read_only mode parks for a person rather than being refused.
	ParkUnlisted bool
	ApprovalTTL  time.Duration // "approval_ttl": how long a parked call waits (0: 24h)
	AwaitPoll    time.Duration // "await_poll": how long one latch_await_decision waits at most (0: 20s)
	// NotifyCommand ("notify_command") is a program and its arguments,
	// run once per parked call (gateway/notify.go); nil runs nothing.
	NotifyCommand []string
	ServeLimits   // the limits on clients (servelimits.go)
	// Clients ("clients") are the MCP clients known by their own bearer
	// token (serveclients.go), sorted by name.
	Clients []ServeClient
	// InboxSSH ("inbox_ssh"), when set, serves the inbox over SSH
	// (inboxssh.go).
	InboxSSH *InboxSSH
}

var serveKeys = slices.Concat([]string{"token_env", "token_file", "allow_remote", "tls_cert", "tls_key", "expose",
	"park_unlisted", "approval_ttl", "await_poll", "notify_command", "clients", "inbox_ssh"}, serveLimitKeys)

// serve reads the "serve" section. Its files are checked when latch serve
// starts, not here: the chat does not need them.
func (l *loader) serve(raw json.RawMessage, servers []ServerConfig) ServeConfig {
	var c ServeConfig
	obj, ok := l.object("", "serve", raw)
	if !ok {
		return c
	}
	l.unknownKeys("", "serve", obj, serveKeys)
	if raw, set := obj["token_env"]; set {
		c.TokenEnv = strings.TrimSpace(l.nonEmpty("", "serve.token_env", raw))
	}
	if raw, set := obj["token_file"]; set {
		c.TokenFile = l.checkPath("", "serve.token_file", l.nonEmpty("", "serve.token_file", raw), false, false)
	}
	if c.TokenEnv != "" && c.TokenFile != "" {
		l.errorf("", "serve.token_env, serve.token_file", "both given; use one")
	}
	if on := l.boolean("", "serve.allow_remote", obj["allow_remote"]); on != nil {
		c.AllowRemote = *on
	}
	if raw, set := obj["tls_cert"]; set {
		c.TLSCert = l.checkPath("", "serve.tls_cert", l.nonEmpty("", "serve.tls_cert", raw), false, false)
	}
	if raw, set := obj["tls_key"]; set {
		c.TLSKey = l.checkPath("", "serve.tls_key", l.nonEmpty("", "serve.tls_key", raw), false, false)
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		l.errorf("", "serve.tls_cert, serve.tls_key", "give both (the certificate and its key) or neither")
	}
	if on := l.boolean("", "serve.park_unlisted", obj["park_unlisted"]); on != nil {
		c.ParkUnlisted = *on
	}
	// Unset, they stay 0: the gateway's defaults.
	c.ApprovalTTL = l.duration("", "serve.approval_ttl", obj["approval_ttl"], 0)
	c.AwaitPoll = l.duration("", "serve.await_poll", obj["await_poll"], 0)
	c.ServeLimits = l.serveLimits(obj)
	if raw, set := obj["notify_command"]; set {
		argv, ok := l.strList("", "serve.notify_command", raw)
		switch {
		case !ok:
		case len(argv) == 0 || strings.TrimSpace(argv[0]) == "":
			l.errorf("", "serve.notify_command", "give the program to run, then its arguments: [\"notify-send\", \"latch\"]")
		default:
			c.NotifyCommand = argv
		}
	}
	if raw, set := obj["clients"]; set {
		c.Clients = l.serveClients(raw)
	}
	if raw, set := obj["inbox_ssh"]; set {
		c.InboxSSH = l.inboxSSH(raw)
	}
	if raw, set := obj["expose"]; set {
		c.Expose, _ = l.strList("", "serve.expose", raw)
		l.checkExpose(c.Expose, servers)
	}
	return c
}

// checkExpose reports each serve.expose entry that names no configured
// server: a server's name, or SERVER__TOOL.
func (l *loader) checkExpose(entries []string, servers []ServerConfig) {
	names := make([]string, 0, len(servers))
	for _, s := range servers {
		names = append(names, s.Name)
	}
	for i, e := range entries {
		server, _, _ := strings.Cut(e, "__")
		if !slices.Contains(names, server) {
			l.errorf("", "serve.expose", "entry %d (%q) names no configured server (a server's name, or SERVER__TOOL)", i, e)
		}
	}
}
