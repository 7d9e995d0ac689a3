//go:build !unix

package config

import "io/fs"

// fileOwner is the owner and group of a file: not known here (Windows
// has no such mode bits; see trust.go).
func fileOwner(fs.FileInfo) (uid, gid int, known bool) { return 0, 0, false }
