package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"

	"latch/permissions"
)

// ruleJSON is spec as a config's rule, on one line:
// {"tool": "…", "args": {"path": "…"}, "decision": "allow"}.
func ruleJSON(spec permissions.RuleSpec) ([]byte, error) {
	tool, err := jsonValue(spec.Tool)
	if err != nil {
		return nil, err
	}
	decision, err := jsonValue(spec.Decision)
	if err != nil {
		return nil, err
	}
	b := append(append([]byte(`{"tool": `), tool...), ", "...)
	if len(spec.Args) > 0 {
		b = append(b, `"args": {`...)
		for i, name := range slices.Sorted(maps.Keys(spec.Args)) {
			k, err := jsonValue(name)
			if err != nil {
				return nil, err
			}
			v, err := jsonValue(spec.Args[name])
			if err != nil {
				return nil, err
			}
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(append(append(b, k...), ": "...), v...)
		}
		b = append(b, "}, "...)
	}
	return append(append(append(b, `"decision": `...), decision...), '}'), nil
}

// WithRule returns the JSON object data with spec added at the end of
// permissions.rules (the list, or the permissions object, made when there
// is none), and the rule's index there. Nothing else changes. The result
// is read back before it is returned: the rule at that index is spec.
func WithRule(data []byte, spec permissions.RuleSpec) ([]byte, int, error) {
	rule, err := ruleJSON(spec)
	if err != nil {
		return nil, 0, err
	}
	out, index, err := insertRule(data, rule)
	if err != nil {
		return nil, 0, err
	}
	var back struct {
		Permissions struct {
			Rules []json.RawMessage `json:"rules"`
		} `json:"permissions"`
	}
	var want, got any
	_ = json.Unmarshal(rule, &want)
	if err := json.Unmarshal(standardOr(bytes.TrimPrefix(out, []byte("\xef\xbb\xbf"))), &back); err != nil || len(back.Permissions.Rules) <= index ||
		json.Unmarshal(back.Permissions.Rules[index], &got) != nil || !reflect.DeepEqual(got, want) {
		return nil, 0, errors.New("the rule could not be added to permissions.rules")
	}
	return out, index, nil
}

// insertRule adds the JSON rule at the end of permissions.rules.
func insertRule(data, rule []byte) ([]byte, int, error) {
	bom := []byte("\xef\xbb\xbf")
	body := bytes.TrimPrefix(data, bom)
	pStart, pEnd := -1, -1
	if len(bytes.TrimSpace(body)) > 0 {
		var err error
		if pStart, pEnd, _, err = keySpan(body, "permissions"); err != nil {
			return nil, 0, err
		}
	}
	if pStart < 0 {
		out, err := withKey(data, "permissions", append(append([]byte(`{"rules": [`), rule...), "]}"...))
		return out, 0, err
	}
	perm := body[pStart:pEnd]
	rStart, rEnd, _, err := keySpan(perm, "rules")
	if err != nil {
		return nil, 0, errors.New("permissions: not a JSON object")
	}
	var newPerm []byte
	index := 0
	if rStart < 0 {
		newPerm, err = withKey(perm, "rules", append(append([]byte("["), rule...), ']'))
	} else {
		var rules []byte
		rules, index, err = appendElement(perm[rStart:rEnd], rule)
		newPerm = append(append(append([]byte(nil), perm[:rStart]...), rules...), perm[rEnd:]...)
	}
	if err != nil {
		return nil, 0, err
	}
	out := append([]byte(nil), data[:len(data)-len(body)]...)
	out = append(append(append(out, body[:pStart]...), newPerm...), body[pEnd:]...)
	return out, index, nil
}

// appendElement adds the JSON value v at the end of the JSON array arr,
// on a line of its own indented like the last element (or after "[" in
// an empty array), and returns the array and v's index.
func appendElement(arr, v []byte) ([]byte, int, error) {
	dec := json.NewDecoder(bytes.NewReader(standardOr(arr)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, 0, errors.New("permissions.rules: not a list")
	}
	n, lastStart, lastEnd := 0, -1, int(dec.InputOffset())
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, 0, err
		}
		lastEnd = int(dec.InputOffset())
		lastStart = lastEnd - len(raw)
		n++
	}
	if n == 0 { // "[ ]": the rule alone
		return append(append([]byte("["), v...), ']'), 0, nil
	}
	// The white space before the last element, after its ',' or the "[";
	// a space when there is none.
	before := arr[:lastStart]
	ws := before[len(bytes.TrimRight(before, " \t\r\n")):]
	if len(ws) == 0 {
		ws = []byte(" ")
	}
	out := append([]byte(nil), arr[:lastEnd]...)
	out = append(append(append(out, ','), ws...), v...)
	return append(out, arr[lastEnd:]...), n, nil
}
