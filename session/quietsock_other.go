//go:build !linux

package session

import "net"

// quietSocket does nothing outside Linux (see quietsock_linux.go): there
// the paced reader's sleep does not keep the poller from waking for
// each segment, which costs CPU but changes nothing else.
type quietSocket struct{}

func quietSocketOf(net.Conn) *quietSocket { return nil }

func (q *quietSocket) hush() {}

func (q *quietSocket) wake() {}
