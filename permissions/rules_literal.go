package permissions

import (
	"regexp/syntax"
	"slices"
)

// mustHold is the longest literal that every match of the regular
// expression expr holds, "" when none is known: a value without it is
// refused before the expression is run (most values a rule sees do not
// match it, and running 1,000 expressions costs far more than looking for
// 1,000 strings). Letters matched whatever their case are no literal.
func mustHold(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	return required(re.Simplify())
}

// required is the longest literal every match of re holds.
func required(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		var lits []string
		for _, sub := range re.Sub {
			lits = append(lits, required(sub))
		}
		return slices.MaxFunc(lits, func(a, b string) int { return len(a) - len(b) })
	}
	return ""
}
