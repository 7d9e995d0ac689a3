package permissions

import (
	"strings"
	"testing"
)

// clientGate is a gate in read_only mode with the rules specs: a call
// no rule allows is refused.
func clientGate(t *testing.T, specs ...RuleSpec) *Gate {
	t.Helper()
	var rules []Rule
	for i, s := range specs {
		r, err := CompileRule(s, "", "rule "+string(rune('a'+i)), "")
		if err != nil {
			t.Fatal(err)
		}
		rules = append(rules, r)
	}
	return NewGate(Policy{Mode: ReadOnly, Servers: []string{"fs"}, Rules: rules})
}

func writeCall(client CallClient) Call {
	return Call{Server: "fs", Tool: "write_file", Name: "fs__write_file", Args: map[string]any{"path": "/tmp/x"}, Client: client}
}

// An allow rule naming clients allows only the calls of a client whose
// own token proved a name it matches: not one only --as named, not the
// shared token's, not the model's; those are refused as without the rule.
func TestClientAllowRuleTakesOnlyAVerifiedName(t *testing.T) {
	g := clientGate(t, RuleSpec{Tool: "fs__write_file", Decision: "allow", Client: "ci-*"})
	for _, c := range []struct {
		name   string
		client CallClient
		want   Decision
	}{
		{"verified ci-bot", CallClient{Name: "ci-bot", Verified: true}, Allow},
		{"verified intern", CallClient{Name: "intern", Verified: true}, Deny},
		{"ci-bot by --as only", CallClient{Name: "ci-bot"}, Deny},
		{"the shared token", CallClient{}, Deny},
	} {
		if v := g.Decide(writeCall(c.client)); v.Decision != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, v.Decision, v.Reason, c.want)
		}
	}
}

// A deny rule naming a client refuses only that client's calls, and a
// claim (--as) of the name is enough for it: a claim can only cost. It
// wins over an allow rule for every client.
func TestClientDenyRuleMatchesOnlyItsClient(t *testing.T) {
	g := clientGate(t, RuleSpec{Tool: "fs__write_file", Decision: "allow"},
		RuleSpec{Tool: "fs__write_file", Decision: "deny", Client: "intern"})
	for _, c := range []struct {
		name   string
		client CallClient
		want   Decision
	}{
		{"verified intern", CallClient{Name: "intern", Verified: true}, Deny},
		{"intern by --as", CallClient{Name: "intern"}, Deny},
		{"verified ci-bot", CallClient{Name: "ci-bot", Verified: true}, Allow},
		{"the shared token", CallClient{}, Allow},
		{"a prefix of the name", CallClient{Name: "intern2", Verified: true}, Allow},
	} {
		if v := g.Decide(writeCall(c.client)); v.Decision != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, v.Decision, v.Reason, c.want)
		}
	}
	v := g.Decide(writeCall(CallClient{Name: "intern", Verified: true}))
	if !strings.Contains(v.Reason, "[client intern]") {
		t.Errorf("the reason does not name the rule's client: %q", v.Reason)
	}
}

// A rule's client is a glob on clients' names; anything else is refused
// when the rule is compiled, naming the field.
func TestClientGlobIsChecked(t *testing.T) {
	for _, bad := range []string{"ci bot", "ci-[", "a/b", "x\x1b[31m"} {
		_, err := CompileRule(RuleSpec{Tool: "*", Decision: "deny", Client: bad}, "", "r", "")
		if re, ok := err.(*RuleError); !ok || re.Field != "client" {
			t.Errorf("client %q: %v; want a RuleError on the client", bad, err)
		}
	}
	if err := ValidClientName(strings.Repeat("a", 65)); err == nil {
		t.Error("a name of 65 characters is taken")
	}
	if err := ValidClientName("tok=abc def"); err == nil || strings.Contains(err.Error(), "abc") {
		t.Errorf("a bad name: %v; want refused, not echoed", err)
	}
}
