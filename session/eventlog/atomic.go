package eventlog

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
)

// WriteFileAtomic replaces path with data: a temporary file in the same
// folder (made 0700 if need be) with mode, synced, then renamed over path.
// A crash leaves the old file or the new one, never half of one, and a
// failure leaves no temporary file behind. (Windows keeps only the
// read-only bit of a mode: a mode it cannot set is no error there.)
func WriteFileAtomic(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // gone after the rename; else a leftover
	if err := tmp.Chmod(mode); err != nil && runtime.GOOS != "windows" {
		_ = tmp.Close() // the error above is the one to report
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close() // the error above is the one to report
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close() // the error above is the one to report
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
