//go:build unix

package sshinbox

import (
	"io/fs"
	"syscall"
)

// owner is a file's owner; ok is false where the system does not say.
func owner(fi fs.FileInfo) (uid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(st.Uid), true
}
