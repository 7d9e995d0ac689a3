package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"latch/config"
	"latch/gateway"
	"latch/permissions"
	"latch/session"
)

// applyOAuth copies a server's OAuth settings into its session config.
func applyOAuth(o config.ServerConfig, c *session.ServerConfig) {
	c.Auth, c.ClientID, c.ClientSecret, c.ClientSecretEnv = o.Auth, o.ClientID, o.ClientSecret, o.ClientSecretEnv
	c.ClientSecretFile, c.ClientSecretCommand, c.ClientKeyFile = o.ClientSecretFile, o.ClientSecretCommand, o.ClientKeyFile
	c.ClientMetadataURL, c.Scopes, c.Grant, c.Store, c.DPoP = o.ClientMetadataURL, o.Scopes, o.Grant, o.Store, o.DPoP
	c.IDPTokenURL, c.IDPClientID, c.IDPClientSecret, c.IDPClientSecretEnv = o.IDPTokenURL, o.IDPClientID, o.IDPClientSecret, o.IDPClientSecretEnv
	c.IDPClientSecretFile, c.IDPClientSecretCommand = o.IDPClientSecretFile, o.IDPClientSecretCommand
	c.IDToken, c.IDTokenEnv, c.IDTokenFile, c.IDTokenCommand = o.IDToken, o.IDTokenEnv, o.IDTokenFile, o.IDTokenCommand
	c.WorkloadToken, c.WorkloadTokenEnv, c.WorkloadTokenFile, c.WorkloadTokenCommand = o.WorkloadToken, o.WorkloadTokenEnv, o.WorkloadTokenFile, o.WorkloadTokenCommand
}

// gatewayLimits are the limits as the gateway takes them.
func gatewayLimits(c config.ServeLimits) gateway.Limits {
	return gateway.Limits{Concurrent: c.MaxConcurrentPerClient, Polls: c.MaxPollsPerClient,
		Rate: c.RatePerClient, Burst: c.BurstPerClient,
		ParkCalls: c.ParkMaxCallsPerClient, ParkBytes: int64(c.ParkMaxBytesPerClient),
		ParkCallsTotal: c.ParkMaxCalls, ParkBytesTotal: int64(c.ParkMaxBytes),
		TaskResults: c.TaskResultsMax, TaskResultBytes: int64(c.TaskResultsMaxBytes),
		Sessions: c.HTTPSessionsMax, SessionIdle: c.HTTPSessionIdle}
}

// saveModel writes "model": name into latch's config file: the one that
// was loaded (cfg.Path), else the default path (a new file). Only the
// model's value is changed (or the key added first); the rest of the file
// stays byte for byte. The file is replaced atomically, keeping its
// permissions. A file of another app's shape is never written: latch's
// model has no place there. It returns the path written.
func saveModel(cfg *config.Config, getenv func(string) string, name string) (string, error) {
	path, err := config.Target(cfg, getenv, "to keep a default model")
	if err != nil {
		return "", err
	}
	return path, rewriteConfig(path, func(data []byte) ([]byte, error) { return config.WithModel(data, name) })
}

// rewriteConfig replaces the file at path (absent: empty) with what edit
// makes of it, atomically, keeping its permissions (0600 for a new file),
// under the lock of path.lock: another latch saving at the same moment
// edits the file this one wrote, and neither save is lost.
func rewriteConfig(path string, edit func([]byte) ([]byte, error)) error {
	release, err := session.LockPath(path + ".lock")
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	defer release()
	mode := fs.FileMode(0o600)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = nil
	case err != nil:
		return err
	default:
		if fi, err := os.Stat(path); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	out, err := edit(data)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return session.WriteFileAtomic(path, out, mode)
}

// ruleFile is the file an argument rule saved from the permission box
// goes into (saveRule): the one the box names before anything is written.
func ruleFile(cfg *config.Config, getenv func(string) string) (string, error) {
	return config.Target(cfg, getenv, "to save a rule")
}

// saveRule appends spec to permissions.rules in latch's config file (see
// config.Target), leaving every other byte of the file as it was, and
// returns it compiled as the config's loader reads it from now on: its
// Origin names the file and the index, `config FILE: permissions.rules[N]`.
func saveRule(cfg *config.Config, getenv func(string) string, spec permissions.RuleSpec) (permissions.Rule, error) {
	path, err := ruleFile(cfg, getenv)
	if err != nil {
		return permissions.Rule{}, err
	}
	named := cfg.Path
	if named == "" {
		named = config.DefaultPath(getenv) // the file the next start loads
	}
	var index int
	err = rewriteConfig(path, func(data []byte) ([]byte, error) {
		out, i, err := config.WithRule(data, spec)
		index = i
		return out, err
	})
	if err != nil {
		return permissions.Rule{}, err
	}
	origin := fmt.Sprintf("config %s: permissions.rules[%d]", named, index)
	return permissions.CompileRule(spec, "", origin, getenv("HOME"))
}
