package oauth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
)

// tokenFile keeps a server's login in dir/<server>.json: the file 0600, the
// folder 0700, written to a temporary file and renamed, so that a crash
// never leaves half a record.
type tokenFile struct {
	dir, server string
}

// path is the record's file.
func (f *tokenFile) path() string {
	return filepath.Join(f.dir, url.PathEscape(f.server)+".json")
}

// load reads the record; a file others can read or write is refused.
func (f *tokenFile) load() (authRecord, error) {
	var rec authRecord
	fi, err := os.Stat(f.path())
	if err != nil {
		return rec, err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return rec, fmt.Errorf("%s: others may read it (mode %v): ignored", f.path(), fi.Mode().Perm())
	}
	b, err := os.ReadFile(f.path())
	if err != nil {
		return rec, err
	}
	err = json.Unmarshal(b, &rec)
	return rec, err
}

// save writes the record.
func (f *tokenFile) save(rec authRecord) error {
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return fmt.Errorf("cannot keep the login: %v", err)
	}
	_ = os.Chmod(f.dir, 0o700)
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(f.dir, ".login-*")
	if err != nil {
		return fmt.Errorf("cannot keep the login: %v", err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if err := tmp.Chmod(0o600); err != nil {
		_ = tmp.Close()
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("cannot keep the login: %v", err)
	}
	// On disk before it replaces the old record: a rotated refresh token
	// lost to a crash would mean logging in again.
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("cannot keep the login: %v", err)
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.path())
}

// remove deletes the record; one that is not there is no error.
func (f *tokenFile) remove() error {
	err := os.Remove(f.path())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
