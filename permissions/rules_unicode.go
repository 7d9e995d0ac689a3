package permissions

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Unicode in the values the rules read (see docs/PERMISSIONS.md, "Unicode
// and look-alikes"). A file system or a server that compares names after
// normalisation (server-filesystem looks a name up by its NFC form, macOS
// stores NFD) opens one file under several spellings, so values and
// patterns are compared in NFC. A path that holds a character that shows
// nothing (zero-width, bidi controls) or looks like a slash is a path a
// person cannot read as the server will: it never matches an allow rule,
// and a deny or ask rule also sees it folded (invisibles removed, the
// look-alikes as '/', NFKC), as a server that normalises would.

// invisible reports whether r shows nothing or reorders what is shown:
// zero-width characters, joiners, bidi marks, embeddings and isolates,
// the word joiner and invisible operators, the byte order mark.
func invisible(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x115F, r == 0x1160, r == 0x180E,
		r == 0x3164, r == 0xFEFF, r == 0xFFA0:
		return true
	case r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E,
		r >= 0x2060 && r <= 0x2064, r >= 0x2066 && r <= 0x206F,
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0000 && r <= 0xE0FFF:
		return true
	}
	return false
}

// slashLike reports whether r looks like '/' or '\' without being one:
// full-width solidus and reverse solidus, division slash, fraction slash,
// big solidus and reverse solidus, set minus.
func slashLike(r rune) bool {
	switch r {
	case 0xFF0F, 0xFF3C, 0x2215, 0x2044, 0x29F8, 0x29F9, 0x2216, 0x29F5, 0xFE68:
		return true
	}
	return false
}

// doubtful reports whether s holds an invisible character or a slash
// look-alike.
func doubtful(s string) bool {
	if isASCII(s) {
		return false
	}
	for _, r := range s {
		if invisible(r) || slashLike(r) {
			return true
		}
	}
	return false
}

// unfolded is s with its invisible characters removed, its slash
// look-alikes as '/', then in NFKC: what a server that normalises
// names could make of it.
func unfolded(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case invisible(r):
			return -1
		case slashLike(r):
			return '/'
		}
		return r
	}, s)
	return norm.NFKC.String(s)
}

// nfc is s in Unicode normalisation form C.
func nfc(s string) string {
	if isASCII(s) {
		return s
	}
	return norm.NFC.String(s)
}

// isASCII reports whether every byte of s is below 0x80.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 { // eight bytes a step: long values are common here
		if (s[i]|s[i+1]|s[i+2]|s[i+3]|s[i+4]|s[i+5]|s[i+6]|s[i+7])&0x80 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// foldCase is s as a case-insensitive file system compares it: in lower
// case (s is NFC).
func foldCase(s string) string {
	if isASCII(s) {
		for i := 0; i < len(s); i++ {
			if 'A' <= s[i] && s[i] <= 'Z' {
				return strings.ToLower(s)
			}
		}
		return s
	}
	return nfc(strings.ToLower(s))
}

// PathCase is how the argument rules compare paths: as they are, or
// case-folded, as a case-insensitive file system opens them.
type PathCase uint8

const (
	// PathCaseOS compares as the file systems of the platform latch runs
	// on do by default: case-folded on macOS and Windows, exact elsewhere.
	PathCaseOS PathCase = iota
	// PathCaseFold compares paths case-folded.
	PathCaseFold
	// PathCaseExact compares paths as they are.
	PathCaseExact
)

// folds reports whether paths compare case-folded on goos.
func (c PathCase) folds(goos string) bool {
	switch c {
	case PathCaseFold:
		return true
	case PathCaseExact:
		return false
	}
	return goos == "darwin" || goos == "windows" || goos == "ios"
}

// foldedArgs are args with their path globs case-folded, for a rule set
// that compares paths case-folded (a copy: the rule given is unchanged).
func foldedArgs(args []argMatcher) []argMatcher {
	out := append([]argMatcher(nil), args...)
	for i := range out {
		m := &out[i].m
		if m.kind != matchPath {
			continue
		}
		m.segs = append([]string(nil), m.segs...)
		for j, s := range m.segs {
			m.segs[j] = foldCase(s)
		}
		m.lit, m.suf = foldCase(m.lit), foldCase(m.suf)
	}
	return out
}
