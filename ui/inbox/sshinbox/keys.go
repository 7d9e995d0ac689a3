package sshinbox

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/crypto/ssh"

	"latch/fileinfo"
	"latch/ui/sanitize"
)

// HostKeyFile is the host key's file in the state folder.
const HostKeyFile = "ssh_host_ed25519_key"

// maxKeysFile bounds what is read of the authorized keys file.
const maxKeysFile = 1 << 20

// maxComment bounds a key's comment, in characters, as the decider is
// recorded.
const maxComment = 64

// HostKey is the inbox's SSH host key: the ed25519 key in dir's
// HostKeyFile, made there once (0600) when there is none. A key others
// may read or write is refused: anyone who reads it can pose as this
// inbox.
func HostKey(dir string) (ssh.Signer, error) {
	path := filepath.Join(dir, HostKeyFile)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newHostKey(dir, path)
	}
	if err != nil {
		return nil, fmt.Errorf("the inbox's SSH host key %s: %v", path, errors.Unwrap(err))
	}
	defer func() { _ = f.Close() }()
	if err := private(f, path, "the inbox's SSH host key"); err != nil {
		return nil, fmt.Errorf("%w, or remove it to make a new one (SSH clients then warn that the host key changed)", err)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeysFile))
	if err != nil {
		return nil, fmt.Errorf("the inbox's SSH host key %s: %v", path, err)
	}
	s, err := ssh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("the inbox's SSH host key %s: not a private key latch can read (%v): remove it to make a new one", path, err)
	}
	return s, nil
}

// newHostKey makes the host key and puts it at path (0600), or, when
// another latch made one there meanwhile (two gateways started at once on
// one state folder), reads that one, so both serve the same key. The key
// is written whole to a file of its own first and then linked into place,
// which fails rather than replace a file that appeared meanwhile: a
// reader never sees a key half written.
func newHostKey(dir, path string) (ssh.Signer, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := ssh.MarshalPrivateKey(priv, "latch inbox")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the inbox's SSH host key: %v", err)
	}
	tmp, err := writeNew(dir, pem.EncodeToMemory(block))
	if err != nil {
		return nil, fmt.Errorf("the inbox's SSH host key: cannot write it in %s: %v", dir, err)
	}
	defer func() { _ = os.Remove(tmp) }()
	if err := os.Link(tmp, path); errors.Is(err, fs.ErrExist) {
		return HostKey(dir)
	} else if err != nil {
		return nil, fmt.Errorf("the inbox's SSH host key: cannot create %s: %v", path, errors.Unwrap(err))
	}
	return ssh.NewSignerFromKey(priv)
}

// writeNew writes b to a new private file (os.CreateTemp makes it 0600)
// in dir, synced, and returns its path.
func writeNew(dir string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+HostKeyFile+"-*")
	if err != nil {
		return "", errors.Unwrap(err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// private says why the open file f (at path, named what) is not the
// person's own and closed to others: mode 0600 or stricter, owned by the
// user latch runs as.
func private(f *os.File, path, what string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s %s: %v", what, path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s is not a regular file", what, path)
	}
	// Windows has no such mode bits (a file shows as 0666): its ACLs are
	// not read, and neither the mode nor the owner is checked there
	// (docs/GATEWAY.md says so, and what to do instead).
	if perm := fi.Mode().Perm(); perm&0o077 != 0 && runtime.GOOS != "windows" {
		return fmt.Errorf("%s %s can be read or written by others (mode %04o): chmod 600 %s", what, path, perm, path)
	}
	if uid, _, ok := fileinfo.Owner(fi); ok && uid != os.Getuid() {
		return fmt.Errorf("%s %s belongs to another user (uid %d): it must be yours (chown it, or keep your own copy)", what, path, uid)
	}
	return nil
}

// listed is a key of the authorized keys file.
type listed struct {
	comment string // sanitized, bounded
}

// readKeys reads the authorized keys file at path: its keys (by their
// wire form), and how many lines it left out because they carry options
// (latch honours none, so it lets none of them in). The file must be
// private (see private).
func readKeys(path string) (keys map[string]listed, withOptions int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, fmt.Errorf("serve.inbox_ssh.authorized_keys %s: %v", path, errors.Unwrap(err))
	}
	defer func() { _ = f.Close() }()
	if err := private(f, path, "serve.inbox_ssh.authorized_keys"); err != nil {
		return nil, 0, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxKeysFile+1))
	if err != nil {
		return nil, 0, fmt.Errorf("serve.inbox_ssh.authorized_keys %s: %v", path, err)
	}
	if len(b) > maxKeysFile {
		return nil, 0, fmt.Errorf("serve.inbox_ssh.authorized_keys %s is larger than 1 MiB: it should list a few public keys", path)
	}
	keys = map[string]listed{}
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		pub, comment, opts, _, err := ssh.ParseAuthorizedKey(line)
		if err != nil {
			continue
		}
		if len(opts) > 0 {
			withOptions++
			continue
		}
		keys[string(pub.Marshal())] = listed{comment: bounded(sanitize.Line(comment), maxComment)}
	}
	return keys, withOptions, nil
}

// bounded cuts s to n characters.
func bounded(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// CheckKeys reads the authorized keys file as each connection will, and
// says how many keys it lets in, or why it cannot be used.
func CheckKeys(path string) (int, error) {
	keys, _, err := readKeys(path)
	return len(keys), err
}
