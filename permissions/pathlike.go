package permissions

import "strings"

// PathLike reports whether s, a string value of the argument named name,
// may name a file: it holds a '/' or a '\', or starts with '.' or '~', or
// its argument's name is a path's (path, file, dir, folder, source,
// destination, target, …). A `A` folder rule must constrain every such
// argument, and the approval screens show such values whole.
//
// Words that hold none of these stay words ("likes tea"). The test is
// deliberately wide: a value read as a path that names none costs a
// narrower saved rule, a path read as a word would leave a file free.
func PathLike(name, s string) bool {
	if strings.ContainsAny(s, `/\`) || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "~") {
		return true
	}
	return pathName(name)
}

// pathNames are argument names that say their value is a file.
var pathNames = []string{"path", "file", "dir", "folder"}

// pathNameExact are argument names that say so only when they are the
// whole name (a "sourceCode" is no file).
var pathNameExact = []string{"source", "src", "destination", "dest", "dst", "target", "root", "cwd", "location", "uri", "from", "to"}

// pathName reports whether an argument's name says its value is a file.
func pathName(name string) bool {
	n := strings.ToLower(name)
	for _, p := range pathNames {
		if strings.Contains(n, p) {
			return true
		}
	}
	for _, p := range pathNameExact {
		if n == p {
			return true
		}
	}
	return false
}

// pathArgument reports whether the argument name with value v holds a
// string that may name a file, at any depth (an object's keys included).
func pathArgument(name string, v any) bool {
	switch x := v.(type) {
	case string:
		return PathLike(name, x)
	case []any:
		for _, e := range x {
			if pathArgument(name, e) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if PathLike(name, k) || pathArgument(name, e) {
				return true
			}
		}
	}
	return false
}
