package permissions

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// CallClient is the MCP client that made a call through latch serve, as
// the config names it: a key of serve.clients, proven by that client's own
// bearer token (Verified), or the name latch serve --stdio --as gave it,
// which is only the claim of whoever started the process. Zero for the
// model's calls and for clients the config does not name (the shared
// token, stdio without --as): no rule with a "client" is about them.
type CallClient struct {
	Name     string
	Verified bool
}

// maxClientName bounds a client's name.
const maxClientName = 64

// ValidClientName says why name cannot name a client (a key of
// serve.clients, or --as), or nil: 1 to 64 of the letters A-Z and a-z,
// the digits, '.', '_' and '-'. The name is never quoted in the error: a
// token put there by mistake must not be echoed.
func ValidClientName(name string) error {
	if name == "" || len(name) > maxClientName {
		return fmt.Errorf("a client's name is 1 to %d characters", maxClientName)
	}
	for _, r := range name {
		if !nameChar(r) {
			return errors.New("a client's name has only the letters A-Z and a-z, the digits, '.', '_' and '-'")
		}
	}
	return nil
}

// nameChar says whether r may be in a client's name.
func nameChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
}

// checkClientGlob says why a rule's "client" is not a glob on clients'
// names, or nil ("" is a rule for every caller).
func checkClientGlob(glob string) error {
	if glob == "" {
		return nil
	}
	if len(glob) > 4*maxClientName {
		return fmt.Errorf("a glob on clients' names is at most %d characters", 4*maxClientName)
	}
	for _, r := range glob {
		if !nameChar(r) && !strings.ContainsRune("*?[]^!", r) {
			return fmt.Errorf("%s: a glob on clients' names (letters, digits, '.', '_', '-', and * ? [ ])", strconv.Quote(glob))
		}
	}
	if _, err := path.Match(glob, ""); err != nil {
		return fmt.Errorf("%s: not a valid glob: %v", strconv.Quote(glob), err)
	}
	return nil
}

// forClient says whether r is about a call of c. A rule without a client
// is about every call. One with a client is never about a call of no
// named client (the model's, the shared token's, stdio without --as);
// an allow rule is only about a client whose name its own token proved,
// so that no claim can earn an allowance; a deny or ask rule is also
// about a client named only by --as, so that the claim can only cost.
func (r *Rule) forClient(c CallClient) bool {
	glob := r.Spec.Client
	switch {
	case glob == "":
		return true
	case c.Name == "", r.Decision == Allow && !c.Verified:
		return false
	}
	ok, err := path.Match(glob, c.Name)
	return ok && err == nil
}

// clientSuffix is how a rule's client is listed after its compact form.
func clientSuffix(glob string) string {
	if glob == "" {
		return ""
	}
	return " [client " + glob + "]"
}
