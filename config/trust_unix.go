//go:build unix

package config

import (
	"io/fs"
	"syscall"
)

// fileOwner is the owner and group of a file; known is false where the
// system does not say.
func fileOwner(fi fs.FileInfo) (uid, gid int, known bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
