package permissions

// PathLike reports whether s, a string value of the argument named name,
// may name a file: it holds a '/' or a '\', or starts with '.' or '~', or
// its argument's name is a path's (path, file, dir, folder, source,
// destination, target, …). A `A` folder rule must constrain every such
// argument, and the approval screens show such values whole.
//
// Words that hold none of these stay words ("likes tea"). The test is
// deliberately wide: a value read as a path that names none costs a
// narrower saved rule, a path read as a word would leave a file free.
//
// It is the gate's own test (rules_bases.go): a value the gate reads as a
// path is one the screens and the A step treat as one.
func PathLike(name, s string) bool {
	return looksLikePath(s) || pathName(name)
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
