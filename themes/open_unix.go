//go:build unix

package themes

import (
	"os"
	"syscall"
)

// openFlags open a theme file without waiting: opening a FIFO for reading
// blocks until a writer comes, and the file is checked to be a regular one
// only once it is open (see openRegular).
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
