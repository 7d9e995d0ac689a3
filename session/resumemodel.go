package session

// restoreModel chooses the model a resumed session talks to: the one it
// last used (logged, the last /model included) when o.Model is empty or
// only the config's default (o.ModelIsDefault), else o.Model (--model,
// which wins). It says which, when the two differ.
func restoreModel(o *Options, logged string) (notices []string) {
	switch {
	case logged == "" || logged == o.Model:
	case o.Model == "":
		o.Model = logged
	case o.ModelIsDefault:
		notices = append(notices, "model "+logged+", as this session last used it (not the configured "+o.Model+
			"; --model chooses another)")
		o.Model = logged
	default:
		notices = append(notices, "--model "+o.Model+" overrides this session's model "+logged)
	}
	return notices
}
