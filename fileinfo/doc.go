// Package fileinfo reads what the system's stat says of a file beyond
// os.FileInfo: its owner, its device and inode, and its change time, where
// the platform has them. It is the one place that looks into
// FileInfo.Sys; it imports the standard library only.
package fileinfo
