package config

import (
	"encoding/json"
	"path/filepath"
)

// instructions reads the config's system prompt keys and instructions
// file into the loaded config.
func (l *loader) instructions(cfg *Config, top map[string]json.RawMessage) {
	cfg.SystemPrompt, _ = l.str("", "system_prompt", top["system_prompt"])
	if raw, set := top["system_prompt_file"]; set {
		p := l.nonEmpty("", "system_prompt_file", raw)
		if p != "" {
			p, _ = ExpandHome(p, l.getenv("HOME"))
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
