package config

import (
	"encoding/json"
	"net"
	"strconv"
)

// InboxSSH is "serve.inbox_ssh": latch serve also serves the inbox over
// SSH, to the public keys a file lists.
type InboxSSH struct {
	Listen         string // "listen": HOST:PORT
	AuthorizedKeys string // "authorized_keys": the file of the keys let in; ~ expanded, relative to the config file's folder
}

var inboxSSHKeys = []string{"listen", "authorized_keys"}

// inboxSSH reads "serve.inbox_ssh". The keys file is read (and its mode
// checked) on each connection, not here.
func (l *loader) inboxSSH(raw json.RawMessage) *InboxSSH {
	obj, ok := l.object("", "serve.inbox_ssh", raw)
	if !ok {
		return nil
	}
	l.unknownKeys("", "serve.inbox_ssh", obj, inboxSSHKeys)
	var c InboxSSH
	if raw, set := obj["listen"]; set {
		c.Listen = l.nonEmpty("", "serve.inbox_ssh.listen", raw)
		if c.Listen != "" {
			if _, port, err := net.SplitHostPort(c.Listen); err != nil || !validPort(port) {
				l.errorf("", "serve.inbox_ssh.listen", "%q is not HOST:PORT (e.g. \"127.0.0.1:2222\")", c.Listen)
			}
		}
	} else {
		l.errorf("", "serve.inbox_ssh", "give \"listen\": the address to serve SSH on, e.g. \"127.0.0.1:2222\"")
	}
	if raw, set := obj["authorized_keys"]; set {
		c.AuthorizedKeys = l.checkPath("", "serve.inbox_ssh.authorized_keys", l.nonEmpty("", "serve.inbox_ssh.authorized_keys", raw), false, false)
	} else {
		l.errorf("", "serve.inbox_ssh", "give \"authorized_keys\": a file of the public keys let in (one a line, as ~/.ssh/authorized_keys; chmod 600)")
	}
	return &c
}

// validPort says whether p is a port number (0 picks one).
func validPort(p string) bool {
	n, err := strconv.Atoi(p)
	return err == nil && n >= 0 && n <= 65535
}
