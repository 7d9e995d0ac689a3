//go:build !linux

package cli

// dropStartPages does nothing here: the pages of the binary are let go on
// Linux only (startpages_linux.go).
func dropStartPages() {}
