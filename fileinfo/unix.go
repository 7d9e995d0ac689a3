//go:build unix

package fileinfo

import (
	"io/fs"
	"syscall"
)

// Owner is the file's owner and group; ok is false where the system does
// not say.
func Owner(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}

// ID is the file's device and inode (0, 0 where the system does not say):
// a file renamed over another, or removed and made again, has another.
func ID(fi fs.FileInfo) (dev, ino uint64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // their types differ between systems
}
