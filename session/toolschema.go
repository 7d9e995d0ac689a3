package session

import (
	"encoding/json"
	"sort"

	"github.com/ollama/ollama/api"
)

// A tool's input schema reaches the model through Ollama's request types,
// which hold only some keywords (docs/SERVERS.md, "Schemas as the model
// sees them"): the parameters' type, $defs, items, required and
// properties, and of each property its type, description, enum, items,
// properties and anyOf. $defs and items are free JSON and pass whole.
// Every other keyword the server wrote (a $ref, oneOf, allOf, if/then/
// else, additionalProperties, pattern, minimum, default, …) is not
// dropped: it is written, as JSON, into the description beside it, so
// the model reads the schema as written. Nothing is dereferenced.

// schemaNoise are keywords that name or annotate a schema and say
// nothing of the values it takes: left out of the notes ($schema names
// the dialect; title repeats the name, as Python servers write on every
// property).
var schemaNoise = map[string]bool{"$schema": true, "title": true, "$comment": true}

// modelParams are a tool's parameters as a chat request carries them,
// and the keywords they cannot hold (for the tool's description).
func modelParams(schema map[string]any) (api.ToolFunctionParameters, map[string]any) {
	p := api.ToolFunctionParameters{Type: "object"}
	rest := map[string]any{}
	for k, v := range schema {
		switch {
		case schemaNoise[k]:
		case k == "type" && isString(v):
			p.Type = v.(string)
		case k == "$defs":
			p.Defs = v
		case k == "items":
			p.Items = v
		case k == "required" && stringList(v) != nil:
			p.Required = stringList(v)
		case k == "properties" && isObject(v):
			p.Properties = modelProperties(v.(map[string]any))
		default:
			rest[k] = v
		}
	}
	return p, rest
}

// modelProperties are properties as a chat request carries them, in the
// order of their names.
func modelProperties(props map[string]any) *api.ToolPropertiesMap {
	names := make([]string, 0, len(props))
	for n := range props {
		names = append(names, n)
	}
	sort.Strings(names)
	out := api.NewToolPropertiesMap()
	for _, n := range names {
		prop, _ := props[n].(map[string]any) // a property that is not an object ("true") takes anything
		out.Set(n, modelProperty(prop))
	}
	return out
}

// modelProperty is one property as a chat request carries it, what it
// cannot hold noted in its description. A const is an enum of one.
func modelProperty(schema map[string]any) api.ToolProperty {
	var p api.ToolProperty
	rest := map[string]any{}
	for k, v := range schema {
		switch {
		case schemaNoise[k]:
		case k == "type" && typeList(v) != nil:
			p.Type = typeList(v)
		case k == "description" && isString(v):
			p.Description = v.(string)
		case k == "enum" && isList(v):
			p.Enum = v.([]any)
		case k == "items":
			p.Items = v
		case k == "properties" && isObject(v):
			p.Properties = modelProperties(v.(map[string]any))
		case k == "anyOf" && objectList(v) != nil:
			for _, m := range objectList(v) {
				p.AnyOf = append(p.AnyOf, modelProperty(m))
			}
		default:
			rest[k] = v
		}
	}
	if c, ok := rest["const"]; ok && p.Enum == nil {
		p.Enum = []any{c}
		delete(rest, "const")
	}
	p.Description = withSchemaNote(p.Description, rest, " ")
	return p
}

// withSchemaNote is desc with the keywords rest written after it as
// JSON, apart by sep; desc alone when there are none.
func withSchemaNote(desc string, rest map[string]any, sep string) string {
	if len(rest) == 0 {
		return desc
	}
	raw, err := json.Marshal(rest) // keys sorted: the same tool, the same text
	if err != nil {
		return desc
	}
	note := "(JSON Schema: " + string(raw) + ")"
	if desc == "" {
		return note
	}
	return desc + sep + note
}

func isString(v any) bool { _, ok := v.(string); return ok }
func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
func isList(v any) bool   { _, ok := v.([]any); return ok }

// stringList is v as a list of strings, nil when it is not one.
func stringList(v any) []string {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(l))
	for _, s := range l {
		str, ok := s.(string)
		if !ok {
			return nil
		}
		out = append(out, str)
	}
	return out
}

// typeList is a type keyword (a name or a list of names), nil when it is
// neither.
func typeList(v any) api.PropertyType {
	if s, ok := v.(string); ok {
		return api.PropertyType{s}
	}
	return stringList(v)
}

// objectList is v as a list of schema objects, nil when it is not one.
func objectList(v any) []map[string]any {
	l, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]map[string]any, 0, len(l))
	for _, e := range l {
		m, ok := e.(map[string]any)
		if !ok {
			return nil
		}
		out = append(out, m)
	}
	return out
}
