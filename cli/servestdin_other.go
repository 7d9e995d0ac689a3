//go:build !linux

package cli

import "io"

// pollableStdin is stdin as it is, read with blocking reads, off Linux:
// there a pipe or a socket has no description of its own to open (macOS
// and the BSDs open /dev/fd/0 as a duplicate of it), and making stdin's
// shared description non-blocking would leave it so for every process
// that shares it, should latch be killed before it set it back.
func pollableStdin(in io.Reader) (io.Reader, func()) { return in, func() {} }
