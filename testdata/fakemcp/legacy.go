package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// lockedWriter lets the legacy filter answer on stdout between the
// server's own messages (each written with one Write).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// legacyMethods are the stateless era's own methods, unknown to a server
// of the handshake era.
var legacyMethods = map[string]bool{"server/discover": true, "subscriptions/listen": true}

// legacyFilter passes stdin on to the server, except the stateless era's
// methods: with answer, they are refused as JSON-RPC "method not found"
// (a legacy server); without, they are dropped unanswered (a server that
// ignores unknown methods). Either way the server is left speaking only
// the handshake era.
func legacyFilter(in io.Reader, out io.Writer, answer bool) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReaderSize(in, 64*1024)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 && !refuse(line, out, answer) {
				if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// refuse handles a line whose method is one of legacyMethods, reporting
// whether it did.
func refuse(line []byte, out io.Writer, answer bool) bool {
	var msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &msg) != nil || !legacyMethods[msg.Method] {
		return false
	}
	fmt.Fprintf(os.Stderr, "fakemcp: %s refused (legacy)\n", msg.Method)
	if answer && len(msg.ID) > 0 {
		fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", msg.ID)
	}
	return true
}
