package permissions

import "fmt"

// The reasons below reach the model (as the tool's error) and the user (on the
// tool card), so each says what happened and what the user could do.

// allowedBy names the rule that allowed c.
func allowedBy(c Call, src Source) string {
	switch src {
	case FromServer:
		return fmt.Sprintf("%s is in the allow list of server %s", c.Tool, c.Server)
	case FromConfig:
		return fmt.Sprintf("%s is in permissions.allow", c.Name)
	case FromFlag:
		return fmt.Sprintf("%s is allowed with --allow", c.Name)
	default:
		return fmt.Sprintf("%s was allowed for this session", c.Name)
	}
}

// notListed is the common start of every reason for a call that is not on the
// allow-list.
func notListed(c Call, mode Mode) string {
	return fmt.Sprintf("%s is not allow-listed and %s is in %s mode", c.Name, c.Server, mode)
}

// readOnlyDenial explains a read_only denial and how the user can lift it: a
// server override needs `/mode SERVER ask`, the global mode `/mode ask`.
func readOnlyDenial(c Call, overridden bool) string {
	modeCmd := "/mode ask"
	if overridden {
		modeCmd = fmt.Sprintf("/mode %s ask", c.Server)
	}
	return fmt.Sprintf("%s; the user can allow it with /allow %s or %s", notListed(c, ReadOnly), c.Name, modeCmd)
}

// noOneToAsk explains why an ask-mode call is denied in non-interactive mode.
func noOneToAsk(c Call) string {
	return fmt.Sprintf("no one to ask in non-interactive mode (-p); %s; the user can allow it with --allow %s",
		notListed(c, Ask), c.Name)
}
