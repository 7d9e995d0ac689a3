package mcp

import (
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
)

func TestCleanName(t *testing.T) {
	tests := []struct{ server, tool, want string }{
		{"fs", "read_text_file", "fs__read_text_file"},
		{"every", "get-sum", "every__get-sum"},
	}
	for _, tc := range tests {
		if got := cleanName(tc.server, tc.tool); got != tc.want {
			t.Errorf("cleanName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	// Names a model could not carry are fixed up, readably and stably.
	for _, tool := range []string{"read file", "ünïcode", "a.b/c", strings.Repeat("long", 30), "\x1b[31mred"} {
		got := cleanName("srv", tool)
		if len(got) > maxNameLen || !strings.HasPrefix(got, "srv__") {
			t.Errorf("cleanName(srv, %q) = %q", tool, got)
		}
		for i := 0; i < len(got); i++ {
			if !validNameChar(got[i]) {
				t.Errorf("cleanName(srv, %q) = %q has %q", tool, got, got[i])
			}
		}
		if again := cleanName("srv", tool); again != got {
			t.Errorf("not deterministic: %q vs %q", got, again)
		}
	}
	if cleanName("srv", "a.b") == cleanName("srv", "a/b") {
		t.Error("two originals cleaned to one name")
	}
}

func TestAssignNamesCollisionsAreDeterministic(t *testing.T) {
	// "a__b" + "c" and "a" + "b__c" join to the same name, which belongs
	// to a__b: a's tool gets another, whichever server is named first.
	servers := []string{"a", "a__b"}
	for _, order := range [][]string{{"x", "y"}, {"y", "x"}} {
		for _, abFirst := range []bool{true, false} {
			taken := map[string]bool{}
			var first, second map[string]string
			if abFirst {
				first = assignNames("a__b", []string{"c"}, taken, servers)
				second = assignNames("a", []string{"b__c", order[0], order[1]}, taken, servers)
			} else {
				second = assignNames("a", []string{"b__c", order[0], order[1]}, taken, servers)
				first = assignNames("a__b", []string{"c"}, taken, servers)
			}
			if first["c"] != "a__b__c" || !strings.HasPrefix(second["b__c"], "a__Xb__c_") {
				t.Fatalf("got %v %v", first, second)
			}
			if second["x"] != "a__x" || second["y"] != "a__y" {
				t.Fatalf("got %v", second)
			}
		}
	}
}

func TestConvertResultCapsAndRedacts(t *testing.T) {
	red := newRedactor("s3cr3t-token")
	big := strings.Repeat("é", 600_000) // 1.2 MB of two-byte runes
	res := convertResult(&mcpgo.CallToolResult{Content: []mcpgo.Content{
		mcpgo.NewTextContent("token s3cr3t-token here"), mcpgo.NewTextContent(big),
		mcpgo.NewImageContent("AAAA", "image/png"),
	}}, 1<<20, red)
	if !res.Truncated || res.Size < 1<<20 || !strings.Contains(res.Text, "[result truncated:") {
		t.Fatalf("not truncated: size %d, truncated %v", res.Size, res.Truncated)
	}
	if strings.Contains(res.Text, "s3cr3t-token") || !strings.Contains(res.Text, "token [redacted] here") {
		t.Fatal("token not redacted")
	}
	if !strings.Contains(res.Text[:100], "token") {
		t.Fatal("text order lost")
	}
	small := convertResult(&mcpgo.CallToolResult{IsError: true, Content: []mcpgo.Content{
		mcpgo.NewTextContent("bad"), mcpgo.NewImageContent("AAAA", "image/png")}}, 1<<20, red)
	if !small.IsError || small.Images != 1 || small.Text != "bad\n[image: image/png, 4 bytes base64]" {
		t.Fatalf("got %+v", small)
	}
}

func TestToolHintsFollowTheSpecDefaults(t *testing.T) {
	ro := convertTool("s", "s__r", mcpgo.NewTool("r", mcpgo.WithReadOnlyHintAnnotation(true)))
	if !ro.ReadOnly || ro.Destructive {
		t.Errorf("read-only tool: %+v", ro)
	}
	plain := convertTool("s", "s__w", mcpgo.Tool{Name: "w"})
	if plain.ReadOnly || !plain.Destructive {
		t.Errorf("a tool that says nothing is assumed destructive: %+v", plain)
	}
	a := convertTool("s", "s__w", mcpgo.NewTool("w", mcpgo.WithDescription("one")))
	b := convertTool("s", "s__w", mcpgo.NewTool("w", mcpgo.WithDescription("two")))
	if a.Digest == b.Digest {
		t.Error("a changed description must change the digest")
	}
}
