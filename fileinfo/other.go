//go:build !unix

package fileinfo

import "io/fs"

// Owner says nothing here: the system has no such owner.
func Owner(fs.FileInfo) (uid, gid int, ok bool) { return 0, 0, false }

// ID is 0, 0 here: no inode in the FileInfo.
func ID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }
