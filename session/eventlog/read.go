package eventlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrCorruptLog is returned for a log line that cannot be read and is not
// the torn last line of a crash.
var ErrCorruptLog = errors.New("corrupt session log")

// LoadLog reads a session log. A torn last line (a crash in mid-write) is
// skipped with a warning, and so is a tail of NUL bytes (see nulTail); any
// other unreadable line is an error naming its line number. decoders
// make an empty event of each type read, decode fills one from its line;
// other event types are skipped (a newer latch wrote them).
func LoadLog(path string, decoders map[string]func() Event, decode func(line []byte, e Event) error) (events []Event, warnings []string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var nulWarning string
	if start, ok, _ := nulTail(bytes.NewReader(data), int64(len(data))); ok {
		nulWarning = tornWarning(path, bytes.Count(data[:start], []byte("\n"))+1)
		data = data[:start]
	}
	defer func() {
		if err == nil && nulWarning != "" {
			warnings = append(warnings, nulWarning)
		}
	}()
	lines := bytes.Split(data, []byte("\n"))
	torn := len(data) > 0 && data[len(data)-1] != '\n'
	for i, line := range lines {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		last := i == len(lines)-1
		var head Header
		if err := json.Unmarshal(line, &head); err != nil {
			if last && torn {
				warnings = append(warnings, tornWarning(path, i+1))
				continue
			}
			return nil, warnings, fmt.Errorf("%w %s: line %d: %v", ErrCorruptLog, path, i+1, err)
		}
		mk, ok := decoders[head.Type]
		if !ok {
			continue
		}
		e := mk()
		if err := decode(line, e); err != nil {
			return nil, warnings, fmt.Errorf("%w %s: line %d (%s): %v", ErrCorruptLog, path, i+1, head.Type, err)
		}
		events = append(events, e)
	}
	return events, warnings, nil
}

func tornWarning(path string, line int) string {
	return fmt.Sprintf("%s: line %d was cut off by a crash and is ignored", path, line)
}

// nulTail finds the NUL bytes a power loss leaves at the end of a log: the
// file's new size reached the disk, the data appended did not, and reads
// back as NUL bytes (with, at times, a newline of a page that did reach
// it). It looks at the file's tail of NUL and white-space bytes (latch
// never writes a NUL: JSON escapes it); if that tail holds a NUL, it
// returns where the torn part starts: the start of the line the first of
// those NULs is in. Everything from there on is one torn last line, for
// LoadLog to skip and for endTornLine to cut before a resumed session
// appends.
func nulTail(r io.ReaderAt, size int64) (start int64, found bool, err error) {
	const chunk = 32 << 10
	buf := make([]byte, chunk)
	firstNul := int64(-1)
	end := size // the tail is [end, size), scanned backwards
scan:
	for end > 0 {
		n := min(int64(chunk), end)
		if _, err := r.ReadAt(buf[:n], end-n); err != nil {
			return 0, false, err
		}
		for i := n - 1; i >= 0; i-- {
			switch buf[i] {
			case 0:
				firstNul = end - n + i
			case '\n', '\r', ' ', '\t':
			default:
				break scan // the tail ends at the first other byte
			}
		}
		end -= n
	}
	if firstNul < 0 {
		return 0, false, nil
	}
	// The torn line starts after the last newline before the first NUL.
	for pos := firstNul; pos > 0; {
		n := min(int64(chunk), pos)
		if _, err := r.ReadAt(buf[:n], pos-n); err != nil {
			return 0, false, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return pos - n + int64(i) + 1, true, nil
		}
		pos -= n
	}
	return 0, true, nil
}
