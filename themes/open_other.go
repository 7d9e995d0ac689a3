//go:build !unix

package themes

import "os"

// openFlags open a theme file for reading (see open_unix.go).
const openFlags = os.O_RDONLY
