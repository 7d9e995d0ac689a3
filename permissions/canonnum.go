package permissions

import "strings"

// canonicalNumber is the canonical form of a JSON number literal, for
// exact grants: its exact decimal value (decimal, as the rules compare
// numbers), so that 1, 1.0 and 10e-1 are one call while 9007199254740993
// and 9007199254740992 (which round to the same float64) are two. Unlike
// a rule's reading it takes JSON's grammar only ("01", "1.", "+1" have
// no form) and a zero keeps its sign ("-0" is not "0"). It never
// computes the value, so a hostile exponent costs nothing; one past nine
// digits has no form, and such a call cannot be approved exactly.
func canonicalNumber(lit string) (string, bool) {
	if !jsonNumber.MatchString(lit) {
		return "", false
	}
	d, ok := decimal(lit)
	if ok && d == "0" && strings.HasPrefix(lit, "-") {
		d = "-0"
	}
	return d, ok
}

// canonicalNumberTo writes lit's canonical form (canonicalNumber) to b,
// marked as a number; false when it has none.
func canonicalNumberTo(b *strings.Builder, lit string) bool {
	n, ok := canonicalNumber(lit)
	if ok {
		b.WriteString("n:" + n)
	}
	return ok
}
