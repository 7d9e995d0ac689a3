package session

import (
	"net"
	"net/url"
	"strconv"
	"strings"
)

// ParseHost reads an Ollama host the way Ollama reads OLLAMA_HOST: "" is
// http://127.0.0.1:11434, a bare host gets port 11434, an explicit http or
// https scheme without a port gets 80 or 443, a path prefix is kept, and
// "ollama.com" means https://ollama.com:443.
func ParseHost(s string) *url.URL {
	defaultPort := "11434"
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "\"'"))
	scheme, hostport, ok := strings.Cut(s, "://")
	switch {
	case !ok:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		defaultPort = "80"
	case scheme == "https":
		defaultPort = "443"
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = "127.0.0.1", defaultPort
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	}
	if n, err := strconv.ParseInt(port, 10, 32); err != nil || n > 65535 || n < 0 {
		port = defaultPort
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}
}
