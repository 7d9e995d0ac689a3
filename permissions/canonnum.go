package permissions

import (
	"strconv"
	"strings"
)

// canonicalNumber is the canonical form of a JSON number literal, for
// exact grants: its exact decimal value, so that 1, 1.0 and 10e-1 are one
// call while 9007199254740993 and 9007199254740992 (which round to the
// same float64) are two. The form is the sign,
// the significant digits and the power of ten they are scaled by ("1e0",
// "-25e-1"); a zero keeps its sign ("0", "-0"). It never computes the
// value, so a hostile exponent (1e999999999) costs nothing. ok is false
// for text that is not a JSON number, or an exponent past int64.
func canonicalNumber(lit string) (string, bool) {
	neg, mant, frac, exp, ok := splitNumber(lit)
	if !ok {
		return "", false
	}
	e, err := strconv.ParseInt(exp, 10, 64)
	if err != nil {
		return "", false
	}
	digits := strings.TrimLeft(mant+frac, "0")
	sign := ""
	if neg {
		sign = "-"
	}
	if digits == "" {
		return sign + "0", true
	}
	trimmed := strings.TrimRight(digits, "0")
	scale := int64(len(digits)-len(trimmed)) - int64(len(frac))
	if (scale > 0 && e > 1<<62) || (scale < 0 && e < -1<<62) {
		return "", false
	}
	return sign + trimmed + "e" + strconv.FormatInt(e+scale, 10), true
}

// splitNumber splits a JSON number literal into its sign, integer digits,
// fraction digits and exponent (signed decimal text, "0" when none); ok
// is false unless lit is a JSON number (RFC 8259 §6).
func splitNumber(lit string) (neg bool, mant, frac, exp string, ok bool) {
	s := lit
	if neg = strings.HasPrefix(s, "-"); neg {
		s = s[1:]
	}
	i := digitRun(s)
	if i == 0 || (i > 1 && s[0] == '0') {
		return false, "", "", "", false
	}
	mant, s = s[:i], s[i:]
	if strings.HasPrefix(s, ".") {
		j := digitRun(s[1:])
		if j == 0 {
			return false, "", "", "", false
		}
		frac, s = s[1:1+j], s[1+j:]
	}
	exp = "0"
	if s != "" {
		if s[0] != 'e' && s[0] != 'E' {
			return false, "", "", "", false
		}
		s = s[1:]
		sign := ""
		if s != "" && (s[0] == '+' || s[0] == '-') {
			sign, s = s[:1], s[1:]
		}
		if j := digitRun(s); j == 0 || j != len(s) {
			return false, "", "", "", false
		}
		exp = strings.TrimPrefix(sign, "+") + s
	}
	return neg, mant, frac, exp, true
}

// digitRun is how many ASCII digits s starts with.
func digitRun(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
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
