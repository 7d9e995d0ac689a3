package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"latch/session"
)

// maxGatewayRuns is how many runs on one config gatewayIDFile remembers.
const maxGatewayRuns = 16

// gatewayIDFile lists the session ids of the latch serve runs on a config
// file, oldest first: the next run takes up the parked calls of one of
// them (unless --fresh).
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

// gatewayRuns are the runs on this config whose logs are still there,
// oldest first.
func gatewayRuns(s *settings) []string {
	b, err := os.ReadFile(gatewayIDFile(s))
	if err != nil {
		return nil
	}
	var ids []string
	for _, id := range strings.Fields(string(b)) {
		if session.Exists(s.stateDir, id) == nil && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids
}

// pickGatewayRun is the session a new run on this config takes up: the
// newest earlier run that no gateway runs now and that has calls still
// waiting, else the newest that no gateway runs; "" (a new session) when
// every one runs — each client that starts its own gateway (two editors
// on one config) gets one, and no parked call is left to a run nobody
// will start again.
func pickGatewayRun(s *settings) string {
	var idle string
	runs := gatewayRuns(s)
	for i := len(runs) - 1; i >= 0; i-- {
		id := runs[i]
		if session.Running(s.stateDir, id) {
			continue
		}
		if idle == "" {
			idle = id
		}
		if waiting, _ := session.HasWaiting(s.stateDir, id); waiting {
			return id
		}
	}
	return idle
}

// saveGatewayID records this run's session as the newest on this config,
// written whole (a temp file renamed into place).
func saveGatewayID(s *settings, id string) error {
	runs := slices.DeleteFunc(gatewayRuns(s), func(r string) bool { return r == id })
	runs = append(runs, id)
	if len(runs) > maxGatewayRuns {
		runs = runs[len(runs)-maxGatewayRuns:]
	}
	return session.WriteFileAtomic(gatewayIDFile(s), []byte(strings.Join(runs, "\n")+"\n"), 0o600)
}
