package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/ansi"
	"golang.org/x/term"
)

// latch approvals' table: its columns, the arguments last.
const (
	approvalCols = 7
	colExpires   = 4
	colSession   = 5
	colArgs      = approvalCols - 1
)

// approvalHeads are the table's column heads.
var approvalHeads = [approvalCols]string{"ID", "CLIENT", "TOOL", "AGE", "EXPIRES", "SESSION", "ARGUMENTS"}

// minArgCells is the fewest cells the arguments get on a terminal, their
// cut's … included: below it the SESSION column is left out.
const minArgCells = 16

// gatewayStopped ends the SESSION cell of a call whose gateway is not
// running.
const gatewayStopped = " (gateway stopped)"

// writeApprovals writes the table of waiting calls. On a terminal of
// width cells (width > 0) each line fits it: the arguments are cut, with
// …, where the width ends; when the columns before them would leave them
// less than minArgCells the SESSION column is left out (saying so, and
// EXPIRES says "stopped" for a gateway that is), and when that is not
// enough either, each call's arguments go on a line of their own under
// it. Not on a terminal (width 0, a pipe or a file) every cell is
// written whole.
func writeApprovals(w io.Writer, rows [][approvalCols]string, width int) error {
	if width <= 0 {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(approvalHeads[:], "\t"))
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r[:], "\t"))
		}
		return tw.Flush()
	}
	var cellW [approvalCols]int
	for i, h := range approvalHeads {
		cellW[i] = ansi.StringWidth(h)
	}
	for _, r := range rows {
		for i := range colArgs {
			cellW[i] = max(cellW[i], ansi.StringWidth(r[i]))
		}
	}
	argsAt := 0
	for i := range colArgs {
		argsAt += cellW[i] + 2
	}
	noSession := argsAt+minArgCells > width
	if noSession {
		argsAt -= cellW[colSession] + 2
		for i := range rows {
			if strings.HasSuffix(rows[i][colSession], gatewayStopped) {
				rows[i][colExpires] = "stopped"
			}
		}
	}
	below := argsAt+minArgCells > width // the arguments on a line of their own
	gap := 2
	if below && argsAt-2 > width {
		gap = 1 // one space between the columns, where two do not fit
	}
	var b strings.Builder
	line := func(r [approvalCols]string) {
		b.Reset()
		for i := range colArgs {
			if i != colSession || !noSession {
				b.WriteString(r[i])
				b.WriteString(strings.Repeat(" ", cellW[i]-ansi.StringWidth(r[i])+gap))
			}
		}
		if below {
			_, _ = io.WriteString(w, ansi.Truncate(strings.TrimRight(b.String(), " "), width, "…")+"\n")
			if r != approvalHeads {
				_, _ = io.WriteString(w, "  "+ansi.Truncate(r[colArgs], max(width-2, 1), "…")+"\n")
			}
			return
		}
		b.WriteString(ansi.Truncate(r[colArgs], width-argsAt, "…"))
		_, _ = io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
	line(approvalHeads)
	for _, r := range rows {
		line(r)
	}
	if noSession {
		_, err := io.WriteString(w, ansi.Truncate("(SESSION not shown: latch approvals | cat shows it)", width, "…")+"\n")
		return err
	}
	return nil
}

// terminalWidth is the width of the terminal w writes to, or 0 when w is
// not a terminal. It asks through the file's raw connection rather than
// Fd, which would put the file in blocking mode.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok {
		return 0
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	width := 0
	_ = rc.Control(func(fd uintptr) {
		if term.IsTerminal(int(fd)) {
			if cols, _, err := term.GetSize(int(fd)); err == nil {
				width = cols
			}
		}
	})
	return width
}
