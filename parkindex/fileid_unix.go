//go:build unix

package parkindex

import (
	"os"
	"syscall"
)

// fileID is a file's device and inode: a log replaced by another file
// (renamed over, removed and made again) has another.
func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // its types differ between systems
	}
	return 0, 0
}
