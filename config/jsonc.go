package config

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/tailscale/hujson"
)

// Config files may hold comments (// and /* */) and trailing commas, as
// VS Code writes its mcp.json and settings.json and as people write
// latch's own file. They are read with hujson, made standard JSON of the
// same length: a comment becomes spaces (its line breaks kept) and a
// trailing comma a space, so every offset into the standard text is the
// same line and column in the file as written, and every error says
// where in the file a person sees it.

// hujsonPos is the place a hujson syntax error gives.
var hujsonPos = regexp.MustCompile(`^hujson: line (\d+), column (\d+): (.*)$`)

// standard returns data (JSON with comments and trailing commas) as
// standard JSON of the same length. A syntax error names the line and
// column in data (columns count characters) and what is wrong.
func standard(data []byte) ([]byte, error) {
	if at := tooDeep(data); at >= 0 { // hujson recurses: a hostile file must not exhaust the stack
		return nil, &syntaxError{offset: at, msg: fmt.Sprintf("nested deeper than %d levels", maxDepth)}
	}
	v, err := hujson.Parse(bytes.Clone(data)) // Standardize writes into the buffer it parsed
	if err != nil {
		m := hujsonPos.FindStringSubmatch(err.Error())
		if m == nil {
			return nil, err
		}
		line, _ := strconv.Atoi(m[1])
		col, _ := strconv.Atoi(m[2])
		return nil, &syntaxError{offset: byteOffset(data, line, col), msg: m[3]}
	}
	v.Standardize()
	out := v.Pack()
	if len(out) != len(data) { // hujson keeps offsets; never trust a shifted text
		return nil, errors.New("comments could not be read")
	}
	return out, nil
}

// standardOr is standard(data), or data itself when it is not valid
// JSONC (the caller's own JSON reading then says what is wrong).
func standardOr(data []byte) []byte {
	if std, err := standard(data); err == nil {
		return std
	}
	return data
}

// syntaxError is a JSONC syntax error at a byte offset of the file.
type syntaxError struct {
	offset int
	msg    string
}

func (e *syntaxError) Error() string { return e.msg }

// byteOffset is the offset of hujson's 1-based line and byte column.
func byteOffset(data []byte, line, col int) int {
	o := 0
	for i := 1; i < line; i++ {
		j := bytes.IndexByte(data[o:], '\n')
		if j < 0 {
			return len(data)
		}
		o += j + 1
	}
	return min(o+col-1, len(data))
}

// posAt is "path:line:col" for a byte offset of the file as written
// (columns count characters).
func posAt(path string, data []byte, offset int) string {
	line, col := lineCol(data, int64(offset)+1)
	return fmt.Sprintf("%s:%d:%d", path, line, col)
}

// maxDepth is the deepest nesting of arrays and objects read, as
// encoding/json's own limit.
const maxDepth = 10000

// tooDeep is the offset of the bracket that nests data deeper than
// maxDepth, or -1. Brackets in strings and comments do not count.
func tooDeep(data []byte) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return -1 // the parser says what is wrong
			}
			i += end + 3
		case c == '[' || c == '{':
			if depth++; depth > maxDepth {
				return i
			}
		case c == ']' || c == '}':
			depth--
		}
	}
	return -1
}
