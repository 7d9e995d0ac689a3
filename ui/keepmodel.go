package ui

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"latch/ui/sanitize"
)

// modelKeeper writes a model as the default and says where (Options.KeepModel).
type modelKeeper = func(name string) (path string, err error)

// modelKept is what writing the default model into the config did.
type modelKept struct {
	path string
	err  error
}

// setAndKeepModel switches to the model, then, if that worked, writes it
// as the default into the config file (Options.KeepModel).
func (m *Model) setAndKeepModel(name string) tea.Cmd {
	b, keep := m.models, m.keepModel
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		info, err := b.SetModel(ctx, name)
		if err != nil {
			return modelSetMsg{info: info, err: err}
		}
		k := &modelKept{err: errors.New("no config file can be written here")}
		if keep != nil {
			k.path, k.err = keep(name)
		}
		return modelSetMsg{info: info, keep: k}
	}
}

// noteKept says where the default model was written, or why it was not.
func (m *Model) noteKept(name string, k *modelKept) {
	switch {
	case k == nil:
	case k.err != nil:
		m.addError("not kept as the default model: " + sanitize.Line(k.err.Error()))
	default:
		m.addNotice(sanitize.Line(name) + " is the default model now: \"model\" written to " + sanitize.Line(k.path))
	}
}
