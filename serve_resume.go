package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"latch/session"
)

// gatewayIDFile holds the session id of the last latch serve run on a
// config file: the next run takes up its parked calls (unless --fresh).
func gatewayIDFile(s *settings) string {
	key := "no-config"
	if p := s.cfg.Path; p != "" {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		sum := sha256.Sum256([]byte(p))
		key = hex.EncodeToString(sum[:8])
	}
	return filepath.Join(s.stateDir, "gateways", key)
}

// lastGatewayID is the session id of the last run on this config, if its
// log is still there; "" otherwise.
func lastGatewayID(s *settings) string {
	b, err := os.ReadFile(gatewayIDFile(s))
	if err != nil {
		return ""
	}
	id := strings.TrimSpace(string(b))
	if session.Exists(s.stateDir, id) != nil {
		return ""
	}
	return id
}

// saveGatewayID records the session id of this run on this config,
// written whole (a temp file renamed into place).
func saveGatewayID(s *settings, id string) error {
	return session.WriteFileAtomic(gatewayIDFile(s), []byte(id+"\n"), 0o600)
}
