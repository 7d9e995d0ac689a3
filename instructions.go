package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"

	"latch/session"
)

// instructions reads the config's system prompt keys and instructions
// file into the loaded config.
func (l *loader) instructions(cfg *Config, top map[string]json.RawMessage) {
	cfg.SystemPrompt, _ = l.str("", "system_prompt", top["system_prompt"])
	if raw, set := top["system_prompt_file"]; set {
		p := l.nonEmpty("", "system_prompt_file", raw)
		if p != "" {
			p, _ = expandHome(p, l.getenv("HOME"))
			if !filepath.IsAbs(p) {
				p = filepath.Join(l.dir, p)
			}
		}
		cfg.SystemPromptFile = p
	}
	if cfg.SystemPrompt != "" && cfg.SystemPromptFile != "" {
		l.errorf("", "system_prompt_file", "set system_prompt or system_prompt_file, not both")
	}
	if raw, set := top["instructions"]; set {
		cfg.Instructions = l.nonEmpty("", "instructions", raw)
	}
}

// sessionInstructions are the system messages every request opens with:
// the system prompt (--system, else the config's), then the project's
// instructions (--instructions, else the config's), read from the files
// now. They come from the config and flags only.
func sessionInstructions(cfg *Config, f flags) ([]session.Instruction, error) {
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
