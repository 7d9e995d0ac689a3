package permissions

import (
	"net/url"
	"path"
	"strings"
	"unicode/utf8"
)

// How a path glob judges a value as the server will read it (see
// docs/PERMISSIONS.md, "Paths are judged as the server reads them"). A
// value that names a file — by its argument's name (pathNames) or by
// its look: a '/' or '\' (or a look-alike) in it, a leading '.' or '~' —
// is cleaned, and when relative, resolved against each of the call's
// bases: an allow rule must hold for every base, a deny or ask rule
// for one. With no base known, a relative path never matches an allow
// rule, and matches a deny or ask rule whose folder it could fall in
// whatever the base (anywhereIn). Any other string is a word: it is only
// cleaned, as before, and never resolved.

// pathNames are the argument names (lower case, without '_' and '-')
// whose values name files whatever they look like; a name holding
// "path", "file", "dir" or "folder" does too.
var pathNames = map[string]bool{
	"path": true, "paths": true, "file": true, "files": true, "filename": true,
	"source": true, "sources": true, "destination": true, "src": true, "dst": true,
	"dest": true, "dir": true, "dirs": true, "directory": true, "folder": true,
	"root": true, "cwd": true, "workdir": true, "target": true,
	"location": true, "uri": true, "from": true, "to": true,
}

// pathName reports whether an argument (or object key) called name holds
// file names.
func pathName(name string) bool {
	if name == "" {
		return false
	}
	var buf [32]byte
	n := buf[:0]
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '_' || c == '-':
		case 'A' <= c && c <= 'Z':
			n = append(n, c+'a'-'A')
		default:
			n = append(n, c)
		}
	}
	if pathNames[string(n)] {
		return true
	}
	for _, part := range []string{"path", "file", "dir", "folder"} {
		if strings.Contains(string(n), part) {
			return true
		}
	}
	return false
}

// looksLikePath reports whether s names a file by its look: a '/' or
// '\' (or a look-alike of one) in it, or a leading '.' or '~'.
func looksLikePath(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == '.' || s[0] == '~' {
		return true
	}
	ascii := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '/' || c == '\\':
			return true
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	if ascii {
		return false
	}
	for _, r := range s {
		if slashLike(r) {
			return true
		}
	}
	return false
}

// absolute reports whether a cleaned path (with '/') is absolute: from
// the root or a drive ("C:/…").
func absolute(p string) bool {
	if strings.HasPrefix(p, "/") {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && p[2] == '/' &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// pathForm is one way the server may read a path: cleaned, with '/';
// for a long one, the words rules looked for in it and did not find.
type pathForm struct {
	s      string
	absent *absentWords
}

func newPathForm(s string) pathForm {
	f := pathForm{s: s}
	if len(s) >= longPath {
		f.absent = &absentWords{}
	}
	return f
}

// addPathForms fills r's path forms from its cleaned readings: absolute
// ones as they are, relative ones as they are and, for a path (resolve),
// resolved against each base (r.anywhere when there is none). fold
// case-folds them.
func (r *reading) addPathForms(bases []string, resolve, fold bool) {
	add := func(list *[]pathForm, s string) {
		if fold {
			s = foldCase(s)
		}
		for _, f := range *list {
			if f.s == s {
				return
			}
		}
		*list = append(*list, newPathForm(s))
	}
	for _, c := range r.clean {
		if absolute(c) {
			add(&r.abs, c)
			continue
		}
		add(&r.rel, c)
		if !resolve {
			continue
		}
		if len(bases) == 0 {
			r.anywhere = true
			continue
		}
		for _, b := range bases {
			add(&r.abs, path.Join(nfc(b), c))
		}
	}
}

// matchPath reports whether the path glob m matches the reading r: with
// every, each way the server may read it must match (and there must be
// one); else one is enough.
func (m *matcher) matchPath(r *reading, every bool) bool {
	forms := r.rel
	if m.rooted {
		forms = r.abs
	}
	if every {
		if r.path && (r.doubt || r.anywhere) || len(forms) == 0 {
			return false
		}
		for i := range forms {
			if !m.matchForm(&forms[i]) {
				return false
			}
		}
		return true
	}
	for i := range forms {
		if m.matchForm(&forms[i]) {
			return true
		}
	}
	if r.anywhere && m.rooted {
		for i := range r.rel {
			if m.anywhereIn(strings.Split(r.rel[i].s, "/")) {
				return true
			}
		}
	}
	return false
}

// matchForm matches one way of reading a path.
func (m *matcher) matchForm(f *pathForm) bool {
	return strings.HasPrefix(f.s, m.lit) && strings.HasSuffix(f.s, m.suf) && matchSegsIn(m.segs, f.s, f.absent)
}

// anywhereIn reports whether the relative path rel (cleaned, split) could
// fall in m's folder for some base the gate does not know: whether its
// segments end a path m matches. The base supplies the start; a base
// is not assumed to lie inside the folder itself, so rel must reach into
// the folder by a segment of its own (".ssh/id_rsa" falls in
// "~/.ssh/**", "notes.txt" does not) — but a leading ".." climbs out of
// the base to anywhere, so "../x" falls in every folder a "**" ends.
func (m *matcher) anywhereIn(rel []string) bool {
	climbs := false
	for len(rel) > 0 && rel[0] == ".." {
		rel, climbs = rel[1:], true
	}
	if len(rel) == 1 && rel[0] == "." {
		rel = nil
	}
	for i := 1; i <= len(m.segs); i++ {
		tail := m.segs[i:]
		if !climbs && !holdsLiteral(tail) {
			continue
		}
		if len(rel) == 0 {
			// No segment left: only a tail of "**" spans none.
			if len(tail) == 1 && tail[0] == "**" {
				return true
			}
			continue
		}
		if matchSegs(tail, strings.Join(rel, "/")) {
			return true
		}
	}
	return false
}

// holdsLiteral reports whether a segment of segs holds a character other
// than '*' and '?': a name of its own, not one any base could supply.
func holdsLiteral(segs []string) bool {
	for _, s := range segs {
		if strings.Trim(s, "*?") != "" {
			return true
		}
	}
	return false
}

// fileURIPath is the path a "file:" URI names, percent-decoded, as a
// server that takes URIs (roots are URIs) opens it.
func fileURIPath(s string) (string, bool) {
	if len(s) < 5 || !strings.EqualFold(s[:5], "file:") {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || u.Path == "" {
		return "", false
	}
	return u.Path, true
}
