package sanitize

import "reflect"

// MapStrings returns v with f applied to every string it holds: exported
// struct fields, the elements of slices, arrays and maps (keys too), and
// what pointers and interfaces point to, at any depth. v itself is never
// changed: the parts that change are copied, and if f changes nothing, v
// is returned as it is, without allocating a copy.
//
// It is how a whole value — an event, a status, a list — passes one door
// (sanitizing, redacting) without anyone listing its fields: a field added
// later is covered too. Unexported fields are not visited; keep strings
// that come from outside in exported ones.
func MapStrings[T any](v T, f func(string) string) T {
	rv := reflect.ValueOf(&v).Elem()
	if out, ok := mapValue(rv, f, 0); ok {
		return out.Interface().(T)
	}
	return v
}

// maxDepth bounds the walk: deeper values (only a cycle or a hostile
// document gets there) are left as they are.
const maxDepth = 200

// mapValue returns v mapped, and whether anything changed; when nothing
// did, the value returned is v.
func mapValue(v reflect.Value, f func(string) string, depth int) (reflect.Value, bool) {
	if depth > maxDepth {
		return v, false
	}
	switch v.Kind() {
	case reflect.String:
		return mapString(v, f)
	case reflect.Pointer, reflect.Interface:
		return mapIndirect(v, f, depth)
	case reflect.Struct:
		return mapStruct(v, f, depth)
	case reflect.Slice, reflect.Array:
		return mapList(v, f, depth)
	case reflect.Map:
		return mapMap(v, f, depth)
	}
	return v, false
}

func mapString(v reflect.Value, f func(string) string) (reflect.Value, bool) {
	s := v.String()
	n := f(s)
	if n == s {
		return v, false
	}
	out := reflect.New(v.Type()).Elem()
	out.SetString(n)
	return out, true
}

// mapIndirect maps what a pointer or an interface holds; a changed value
// gets a new pointer (or interface), the old one is left alone.
func mapIndirect(v reflect.Value, f func(string) string, depth int) (reflect.Value, bool) {
	if v.IsNil() {
		return v, false
	}
	e, ok := mapValue(v.Elem(), f, depth+1)
	if !ok {
		return v, false
	}
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(e)
		return p, true
	}
	out := reflect.New(v.Type()).Elem()
	out.Set(e)
	return out, true
}

// mapStruct maps the exported fields, copying the struct on the first
// change.
func mapStruct(v reflect.Value, f func(string) string, depth int) (reflect.Value, bool) {
	var out reflect.Value
	t := v.Type()
	for i := range v.NumField() {
		if !t.Field(i).IsExported() {
			continue
		}
		nf, ok := mapValue(v.Field(i), f, depth+1)
		if !ok {
			continue
		}
		if !out.IsValid() {
			out = reflect.New(t).Elem()
			out.Set(v)
		}
		out.Field(i).Set(nf)
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

// mapList maps the elements of a slice or an array, copying it on the
// first change.
func mapList(v reflect.Value, f func(string) string, depth int) (reflect.Value, bool) {
	if v.Kind() == reflect.Slice && v.IsNil() {
		return v, false
	}
	var out reflect.Value
	for i := range v.Len() {
		ne, ok := mapValue(v.Index(i), f, depth+1)
		if !ok {
			continue
		}
		if !out.IsValid() {
			if v.Kind() == reflect.Slice {
				out = reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			} else {
				out = reflect.New(v.Type()).Elem()
			}
			reflect.Copy(out, v)
		}
		out.Index(i).Set(ne)
	}
	if !out.IsValid() {
		return v, false
	}
	return out, true
}

// mapMap maps keys and values. A first pass looks for a change without
// copying anything; only then is a new map made.
func mapMap(v reflect.Value, f func(string) string, depth int) (reflect.Value, bool) {
	if v.IsNil() {
		return v, false
	}
	var it reflect.MapIter
	it.Reset(v)
	changed := false
	for !changed && it.Next() {
		_, kc := mapValue(it.Key(), f, depth+1)
		_, ec := mapValue(it.Value(), f, depth+1)
		changed = kc || ec
	}
	if !changed {
		return v, false
	}
	out := reflect.MakeMapWithSize(v.Type(), v.Len())
	it.Reset(v)
	for it.Next() {
		k, _ := mapValue(it.Key(), f, depth+1)
		e, _ := mapValue(it.Value(), f, depth+1)
		out.SetMapIndex(k, e)
	}
	return out, true
}
