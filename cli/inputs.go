package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"latch/config"
	"latch/ui/sanitize"
)

// Asking for VS Code's ${input:ID} values (config/inputs.go says what
// they are): once, at start, before the screen comes up, masked, kept in
// memory only.

// errQuitAtPrompt means the person quit while latch asked for an input.
var errQuitAtPrompt = errors.New("quit")

// askInputs asks on the terminal, once each, for the ${input:…} values
// the servers need, masked. Without a terminal it asks nothing. An empty
// answer (or Ctrl+D) gives no value; Ctrl+C or a quit signal is
// errQuitAtPrompt.
func askInputs(quit context.Context, in *os.File, out io.Writer, cfg *config.Config) (map[string]string, error) {
	users := map[string][]string{} // input id → the servers that need it
	var ids []string
	for _, s := range cfg.Servers {
		for _, id := range s.Inputs {
			if users[id] == nil {
				ids = append(ids, id)
			}
			users[id] = append(users[id], s.Name)
		}
	}
	values := map[string]string{}
	fd := int(in.Fd())
	if len(ids) == 0 || !term.IsTerminal(fd) {
		return values, nil
	}
	// Raw (no echo) before the first question is shown: a value typed at
	// once is never echoed by the terminal.
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	defer func() { _ = term.Restore(fd, old) }() // back to what it was; nothing to do if it fails
	for _, id := range ids {
		what := "${input:" + id + "}"
		if d := cfg.Inputs[id].Description; d != "" {
			what = fmt.Sprintf("%s (%s)", sanitize.Line(d), what)
		}
		fmt.Fprintf(out, "latch: server %s needs %s; it is kept in memory only. Enter to skip the server\r\n> ",
			strings.Join(slices.Sorted(slices.Values(users[id])), ", "), what)
		v, err := readMasked(quit, in, out)
		fmt.Fprint(out, "\r\n")
		if err != nil {
			return nil, err
		}
		values[id] = v
	}
	return values, nil
}

// readMasked reads one line from a terminal in raw mode, echoing a * per
// character. Only the bytes of that line are read: what comes after is
// left for the screen. Escape sequences (arrow keys) are ignored.
func readMasked(quit context.Context, in *os.File, out io.Writer) (string, error) {
	type chunk struct {
		b   byte
		err error
	}
	next := make(chan chunk, 1) // a read left waiting at a quit never blocks
	read := func() {
		var b [1]byte
		_, err := in.Read(b[:])
		next <- chunk{b[0], err}
	}
	var line []byte
	esc := 0 // 1 after ESC, 2 inside a CSI sequence
	for {
		go read()
		var c chunk
		select {
		case <-quit.Done():
			return "", errQuitAtPrompt
		case c = <-next:
		}
		if c.err != nil {
			return "", nil
		}
		switch b := c.b; {
		case esc == 1:
			esc = 0
			if b == '[' || b == 'O' {
				esc = 2
			}
		case esc == 2:
			if b >= 0x40 && b <= 0x7e {
				esc = 0
			}
		case b == 0x1b:
			esc = 1
		case b == '\r' || b == '\n':
			return string(line), nil
		case b == 0x03:
			return "", errQuitAtPrompt
		case b == 0x04:
			if len(line) == 0 {
				return "", nil
			}
		case b == 0x7f || b == 0x08:
			if len(line) > 0 {
				_, n := utf8.DecodeLastRune(line)
				line = line[:len(line)-n]
				fmt.Fprint(out, "\b \b")
			}
		case b == 0x15: // Ctrl+U
			fmt.Fprint(out, strings.Repeat("\b \b", utf8.RuneCount(line)))
			line = line[:0]
		case b < 0x20:
		default:
			line = append(line, b)
			if utf8.RuneStart(b) {
				fmt.Fprint(out, "*")
			}
		}
	}
}
