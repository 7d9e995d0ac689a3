package mcp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// trickyServers are servers whose tools' plain names (server__tool)
// collide across servers, each with the tools it offers.
var trickyServers = map[string][]string{
	// x + _foo, x_ + foo and x__ + "" … all join to x___foo-like names.
	"x":   {"_foo", "foo", "__foo", "bar", "_bar"},
	"x_":  {"foo", "_foo", "_bar"},
	"x__": {"foo", "_bar"},
	// a + b__c and a__b + c join to a__b__c.
	"a":    {"b__c", "b", "c"},
	"a__b": {"c", "b__c"},
	// Names a model can't carry, cleaned to the same characters.
	"s": {"a.b", "a/b", "a_b", "a b"},
	// Long names that agree on their first 64 characters.
	"long": {strings.Repeat("t", 70) + "1", strings.Repeat("t", 70) + "2"},
	// x-'s tools look like x's fixed-up names.
	"x-": {"foo", "Xfoo"},
}

func trickyServer(name string, tools []string) *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer(name, "1.0", mcpserver.WithToolCapabilities(true))
	for _, tool := range tools {
		s.AddTool(mcpgo.NewTool(tool, mcpgo.WithDescription("tool "+tool+" of "+name)),
			func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
				return mcpgo.NewToolResultText(name + "/" + tool), nil
			})
	}
	return s
}

// TestToolNamesAreUniqueAcrossServers: with servers whose plain tool names
// collide (x + _foo and x_ + foo are both x___foo), every tool gets its own
// model-facing name, each name leads back to its (server, tool) through
// Lookup and to that tool when called, and a tool's name does not depend on
// which other servers are connected.
func TestToolNamesAreUniqueAcrossServers(t *testing.T) {
	var cfgs []ServerConfig
	var names []string
	for name, tools := range trickyServers {
		cfgs = append(cfgs, ServerConfig{Name: name, Transport: TransportInProcess, InProcess: trickyServer(name, tools), Disabled: true})
		names = append(names, name)
	}
	slices.Sort(names)
	m, _ := startFake(t, Options{}, cfgs...)

	// check connects exactly the servers given, then checks every name
	// and returns the name of each (server, tool).
	check := func(connected []string) map[[2]string]string {
		t.Helper()
		if err := m.Close("all"); err != nil {
			t.Fatal(err)
		}
		for _, n := range connected {
			if err := m.Connect(n); err != nil {
				t.Fatalf("connect %s: %v", n, err)
			}
		}
		want := 0
		for _, n := range connected {
			want += len(trickyServers[n])
		}
		tools := m.Tools()
		if len(tools) != want {
			t.Fatalf("connected %v: %d tools named, want %d: %v", connected, len(tools), want, tools)
		}
		got := map[[2]string]string{}
		for _, tool := range tools {
			key := [2]string{tool.Server, tool.Original}
			if prev, dup := got[key]; dup {
				t.Errorf("%v named twice: %s and %s", key, prev, tool.Name)
			}
			got[key] = tool.Name
			back, ok := m.Lookup(tool.Name)
			if !ok || back.Server != tool.Server || back.Original != tool.Original {
				t.Errorf("Lookup(%s) = %+v %v, want %v", tool.Name, back, ok, key)
			}
			if len(tool.Name) > maxNameLen || !strings.HasPrefix(tool.Name, tool.Server+Separator) {
				t.Errorf("name %q for %v", tool.Name, key)
			}
			for i := 0; i < len(tool.Name); i++ {
				if !validNameChar(tool.Name[i]) {
					t.Errorf("name %q has %q", tool.Name, tool.Name[i])
				}
			}
			res, err := m.Call(context.Background(), tool.Name, nil, "")
			if err != nil || res.Text != tool.Server+"/"+tool.Original {
				t.Errorf("calling %s ran %+v, %v; want %s/%s", tool.Name, res, err, tool.Server, tool.Original)
			}
		}
		if len(got) != want {
			t.Fatalf("%d distinct tools, want %d", len(got), want)
		}
		return got
	}

	all := check(names)
	for key, name := range all {
		t.Logf("%-8s %-10q → %s", key[0], key[1], name)
	}
	// The pair of the report: an entry meant for x_'s foo is x___foo.
	if all[[2]string{"x_", "foo"}] != "x___foo" || all[[2]string{"x", "_foo"}] == "x___foo" {
		t.Errorf("x_ foo → %s, x _foo → %s", all[[2]string{"x_", "foo"}], all[[2]string{"x", "_foo"}])
	}
	// Each server alone, and in reverse order of connecting: same names.
	reversed := slices.Clone(names)
	slices.Reverse(reversed)
	for _, subset := range append([][]string{reversed}, func() (out [][]string) {
		for _, n := range names {
			out = append(out, []string{n})
		}
		return out
	}()...) {
		for key, name := range check(subset) {
			if all[key] != name {
				t.Errorf("connected %v: %v is %s, with every server %s", subset, key, name, all[key])
			}
		}
	}
}

// TestToolNameBelongsToItsServer checks toolName directly on generated
// pairs: every name belongs to its server and no two (server, tool) pairs
// share one.
func TestToolNameBelongsToItsServer(t *testing.T) {
	servers := []string{"x", "x_", "x__", "x___", "a", "a__b", "a__b__c", "b", "b-", "b_-", "ab"}
	parts := []string{"", "_", "__", "foo", "_foo", "__foo", "b__c", "_b__c", "c", "Xfoo", "X_foo", "-x", "b"}
	seen := map[string]string{}
	for _, server := range servers {
		taken := map[string]bool{}
		assigned := assignNames(server, parts, taken, servers)
		for _, tool := range parts {
			name := assigned[tool]
			if !belongsTo(name, server, servers) || ownerOf(name, servers) != server {
				t.Errorf("%s + %q → %q, which belongs to %q", server, tool, name, ownerOf(name, servers))
			}
			if prev, dup := seen[name]; dup {
				t.Errorf("%q for both %s and %s + %q", name, prev, server, tool)
			}
			seen[name] = fmt.Sprintf("%s + %q", server, tool)
			if again := toolName(server, tool, servers); assigned[tool] != again && !strings.HasPrefix(assigned[tool], again) {
				t.Errorf("%s + %q: %q, then %q", server, tool, assigned[tool], again)
			}
		}
	}
}
