//go:build !linux

package cli

// pageRange is a mapping of the binary; none is let go here.
type pageRange struct{}

// dropStartPages does nothing here: the pages of the binary are let go on
// Linux only (startpages_linux.go).
func dropStartPages() []pageRange { return nil }

// keepPagesDown does nothing here (startpages_linux.go).
func keepPagesDown([]pageRange) (stop func()) { return func() {} }
