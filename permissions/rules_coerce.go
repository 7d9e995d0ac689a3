package permissions

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Exact numbers and the values a lax validator reads as a rule's. A
// number is compared in a canonical decimal form, never through float64:
// 9007199254740993 is not 9007199254740992. A deny or ask rule on a
// boolean or a number also matches the spellings a server that coerces
// its arguments reads as it ("yes" for true, "42" for 42); an allow rule
// matches the exact value only.

// decimal is the canonical decimal form of a JSON number given as text:
// its significant digits and exponent ("42" is "42e0", "4.20e1" too, -0
// is "0"); false when s is not a number.
func decimal(s string) (string, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg || strings.HasPrefix(s, "+") {
		s = s[1:]
	}
	mant, exp, hasExp := strings.Cut(s, "e")
	if !hasExp {
		mant, exp, hasExp = strings.Cut(s, "E")
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip == "" && fp == "" || !allDigits(ip) || !allDigits(fp) {
		return "", false
	}
	e := 0
	if hasExp {
		exp = strings.TrimPrefix(exp, "+")
		// An exponent of more than nine digits is no number a rule could
		// name; refusing it keeps the arithmetic small.
		n, err := strconv.Atoi(exp)
		if err != nil || len(strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")) > 9 {
			return "", false
		}
		e = n
	}
	digits := strings.TrimLeft(ip+fp, "0")
	e -= len(fp)
	trimmed := strings.TrimRight(digits, "0")
	e += len(digits) - len(trimmed)
	if trimmed == "" {
		return "0", true
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + strconv.Itoa(e), true
}

// allDigits reports whether s is only ASCII digits (or empty).
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// exactNumber is the canonical decimal form of v when it is a JSON
// number: a float64 by its shortest spelling (the one it was written
// with), a json.Number by its text.
func exactNumber(v any) (string, bool) {
	switch x := v.(type) {
	case float64:
		return decimal(strconv.FormatFloat(x, 'g', -1, 64))
	case int:
		return decimal(strconv.Itoa(x))
	case int64:
		return decimal(strconv.FormatInt(x, 10))
	case json.Number:
		return decimal(string(x))
	}
	return "", false
}

// laxBool is what a lax validator reads a string or number as, when it
// reads it as a boolean.
func laxBool(v any) (b, ok bool) {
	switch x := v.(type) {
	case string:
		x = strings.TrimSpace(x)
		if len(x) > len("false") {
			return false, false // no spelling of a boolean: no need to fold a long value
		}
		switch strings.ToLower(x) {
		case "true", "1", "on", "yes", "y":
			return true, true
		case "false", "0", "off", "no", "n":
			return false, true
		}
	case float64:
		return x == 1, x == 1 || x == 0
	default:
		switch d, _ := exactNumber(v); d {
		case "1e0":
			return true, true
		case "0":
			return false, true
		}
	}
	return false, false
}

// laxNumber is the canonical decimal form of what a lax validator reads a
// string or a boolean as, when it reads it as a number.
func laxNumber(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return decimal(strings.TrimSpace(x))
	case bool:
		if x {
			return "1e0", true
		}
		return "0", true
	}
	return "", false
}
