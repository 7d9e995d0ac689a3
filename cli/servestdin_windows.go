package cli

import "io"

// pollableStdin is stdin as it is: Windows reads a pipe with no poller.
func pollableStdin(in io.Reader) (io.Reader, func()) { return in, func() {} }
