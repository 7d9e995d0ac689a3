package cli

import (
	"errors"
	"os"
	"path/filepath"

	"latch/config"
	"latch/session"
)

// sessionInstructions are the system messages every request opens with:
// the system prompt (--system, else the config's), then the project's
// instructions (--instructions, else the config's), read from the files
// now. They come from the config and flags only.
func sessionInstructions(cfg *config.Config, f flags) ([]session.Instruction, error) {
	var out []session.Instruction
	switch {
	case f.system != "":
		out = append(out, session.Instruction{Name: "system prompt", Text: f.system})
	case cfg.SystemPromptFile != "":
		in, err := session.ReadInstruction("system prompt", cfg.SystemPromptFile)
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	case cfg.SystemPrompt != "":
		out = append(out, session.Instruction{Name: "system prompt", Text: cfg.SystemPrompt})
	}
	file := cfg.Instructions
	if f.instructions != "" {
		file = f.instructions
	}
	if file != "" {
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, err
		}
		in, err := session.ReadInstruction(filepath.Base(file), abs)
		if errors.Is(err, os.ErrNotExist) && f.instructions == "" {
			return out, nil // the config's file is optional: not every project has one
		}
		if err != nil {
			return nil, err
		}
		out = append(out, in)
	}
	return out, nil
}
