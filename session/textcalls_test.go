package session

import (
	"encoding/json"
	"strings"
	"testing"
)

// offeredTools are the tools the parser tests' requests offer.
func offeredTools(name string) bool {
	return name == "fs__read_file" || name == "notes__write_note"
}

// callString renders parsed calls as name(args JSON);… for comparison.
func callString(t *testing.T, content string) (string, string, bool) {
	t.Helper()
	calls, prose, ok := parseTextCalls(content, offeredTools)
	var parts []string
	for i, c := range calls {
		if c.ID != "" {
			t.Errorf("call %d has id %q: the parser gives none", i, c.ID)
		}
		if c.Function.Index != i {
			t.Errorf("call %d has index %d", i, c.Function.Index)
		}
		args, err := json.Marshal(c.Function.Arguments.ToMap())
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, c.Function.Name+string(args))
	}
	return strings.Join(parts, ";"), prose, ok
}

func TestTextCallsRecognized(t *testing.T) {
	const read = `fs__read_file{"path":"/etc/hosts"}`
	tests := []struct {
		name, content, want, prose string
	}{
		{"tool_call tag", `<tool_call>{"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}</tool_call>`, read, ""},
		{"tool_call tag with whitespace and newlines", "\n  <tool_call>\n{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}\n</tool_call>\n\n", read, ""},
		{"tool_call tags in a row", "<tool_call>\n{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"notes__write_note\", \"arguments\": {\"text\": \"hi\"}}\n</tool_call>",
			read + `;notes__write_note{"text":"hi"}`, ""},
		{"tool_call after prose", "I'll read the file.\n<tool_call>{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}</tool_call>", read, "I'll read the file."},
		{"json fence", "```json\n{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}\n```", read, ""},
		{"JSON fence, upper case", "```JSON\n{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}\n```", read, ""},
		{"bare fence", "```\n{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}\n```", read, ""},
		{"fence after prose", "Let me look.\n\n```json\n{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}\n```\n", read, "Let me look."},
		{"fence with an array", "```json\n[{\"name\": \"fs__read_file\", \"arguments\": {\"path\": \"/etc/hosts\"}}]\n```", read, ""},
		{"TOOL_CALLS", `[TOOL_CALLS] [{"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}]`, read, ""},
		{"TOOL_CALLS two calls, no space", `[TOOL_CALLS][{"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}, {"name": "notes__write_note", "arguments": {"text": "hi"}}]`,
			read + `;notes__write_note{"text":"hi"}`, ""},
		{"TOOL_CALLS one object", `[TOOL_CALLS] {"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}`, read, ""},
		{"bare name/arguments", `{"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}`, read, ""},
		{"bare function/parameters", `{"function": "fs__read_file", "parameters": {"path": "/etc/hosts"}}`, read, ""},
		{"bare name/parameters", ` {"name": "fs__read_file", "parameters": {"path": "/etc/hosts"}} `, read, ""},
		{"bare array", `[{"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}]`, read, ""},
		{"arguments as a JSON string", `{"name": "fs__read_file", "arguments": "{\"path\": \"/etc/hosts\"}"}`, read, ""},
		{"empty arguments", `<tool_call>{"name": "notes__write_note", "arguments": {}}</tool_call>`, `notes__write_note{}`, ""},
		{"nested arguments", `{"name": "notes__write_note", "arguments": {"text": "a", "tags": ["x", "y"], "n": 2}}`, `notes__write_note{"n":2,"tags":["x","y"],"text":"a"}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, prose, ok := callString(t, tt.content)
			if !ok || got != tt.want || prose != tt.prose {
				t.Errorf("parse(%q) = %q, prose %q, %v; want %q, prose %q", tt.content, got, prose, ok, tt.want, tt.prose)
			}
		})
	}
}

func TestTextCallsRefused(t *testing.T) {
	tests := []struct{ name, content string }{
		{"plain answer", "The file says hello."},
		{"empty", "   \n"},
		{"name not offered", `{"name": "fs__delete_all", "arguments": {}}`},
		{"one name of two not offered", `[TOOL_CALLS] [{"name": "fs__read_file", "arguments": {}}, {"name": "rm", "arguments": {}}]`},
		{"tool_call tag, name not offered", `<tool_call>{"name": "shell", "arguments": {"cmd": "rm -rf /"}}</tool_call>`},
		{"bad JSON in tag", `<tool_call>{"name": "fs__read_file", "arguments": {"path": }</tool_call>`},
		{"bad JSON bare", `{"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}`},
		{"bad JSON in fence", "```json\n{\"name\": \"fs__read_file\", \"arguments\": {'path': 1}}\n```"},
		{"trailing JSON after the object", `{"name": "fs__read_file", "arguments": {}} {"x": 1}`},
		{"text after the tag", `<tool_call>{"name": "fs__read_file", "arguments": {}}</tool_call> Done.`},
		{"text after the fence", "```json\n{\"name\": \"fs__read_file\", \"arguments\": {}}\n```\nThat is how you call it."},
		{"text after TOOL_CALLS", `[TOOL_CALLS] [{"name": "fs__read_file", "arguments": {}}] and then I stop`},
		{"bare JSON after prose", `To read a file, send {"name": "fs__read_file", "arguments": {"path": "/etc/hosts"}}`},
		{"bare JSON before prose", `{"name": "fs__read_file", "arguments": {}} is how you would call it.`},
		{"quoted example in prose, then a tag", "Models write `<tool_call>` like this:\n<tool_call>{\"name\": \"fs__read_file\", \"arguments\": {}}</tool_call>"},
		{"earlier code block, then a fence", "```go\nfmt.Println(1)\n```\nand the call:\n```json\n{\"name\": \"fs__read_file\", \"arguments\": {}}\n```"},
		{"fence of another language", "```python\n{\"name\": \"fs__read_file\", \"arguments\": {}}\n```"},
		{"fence not at a line start", "see ```json\n{\"name\": \"fs__read_file\", \"arguments\": {}}\n```"},
		{"unclosed tag", `<tool_call>{"name": "fs__read_file", "arguments": {}}`},
		{"close tag without open", `{"name": "fs__read_file", "arguments": {}}</tool_call>`},
		{"missing arguments", `{"name": "fs__read_file"}`},
		{"missing name", `{"arguments": {"path": "/"}}`},
		{"extra key", `{"name": "fs__read_file", "arguments": {}, "id": "1"}`},
		{"both name and function", `{"name": "fs__read_file", "function": "fs__read_file"}`},
		{"both arguments and parameters", `{"name": "fs__read_file", "arguments": {}, "parameters": {}}`},
		{"name not a string", `{"name": 3, "arguments": {}}`},
		{"empty name", `{"name": "", "arguments": {}}`},
		{"arguments an array", `{"name": "fs__read_file", "arguments": ["/etc/hosts"]}`},
		{"arguments null", `{"name": "fs__read_file", "arguments": null}`},
		{"arguments a string that is not an object", `{"name": "fs__read_file", "arguments": "/etc/hosts"}`},
		{"function as an object", `{"function": {"name": "fs__read_file"}, "parameters": {}}`},
		{"empty array", `[TOOL_CALLS] []`},
		{"array of non-objects", `["fs__read_file"]`},
		{"a JSON answer that is not a call", `{"answer": 42, "unit": "m"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if calls, prose, ok := parseTextCalls(tt.content, offeredTools); ok || calls != nil || prose != "" {
				t.Errorf("parse(%q) = %+v, %q, %v; want no call", tt.content, calls, prose, ok)
			}
		})
	}
}

func TestNewCallID(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := newCallID()
		if len(id) != len("call_")+8 || !strings.HasPrefix(id, "call_") || strings.Trim(id[5:], "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
			t.Fatalf("id %q is not call_ and 8 of [a-z0-9]", id)
		}
		if seen[id] {
			t.Fatalf("id %q twice", id)
		}
		seen[id] = true
	}
}
