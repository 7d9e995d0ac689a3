package fileinfo

import (
	"io/fs"
	"syscall"
)

// ChangeTime is the file's change time (ns), which no writer can set back
// (unlike the modification time); 0 where the system does not say.
func ChangeTime(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}
