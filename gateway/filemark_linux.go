package gateway

import (
	"os"
	"syscall"
)

// statIDs are the file's device, inode and change time (ns), from the
// stat the FileInfo came from.
func statIDs(fi os.FileInfo) (dev, ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return uint64(st.Dev), st.Ino, st.Ctim.Nano() //nolint:unconvert // Dev is uint32 on some architectures
}
