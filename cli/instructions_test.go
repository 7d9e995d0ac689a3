package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"latch/config"
)

// TestInstructionsFromConfigAndFlags: system_prompt_file is read relative
// to the config's folder and sent first, then the instructions file;
// --system and --instructions take their places; a missing AGENTS.md the
// config names is no error, a missing file --instructions names is.
func TestInstructionsFromConfigAndFlags(t *testing.T) {
	path, dir := writeConfig(t, `{"system_prompt_file": "prompt.md", "instructions": "$TMP/AGENTS.md"}`)
	for name, text := range map[string]string{"prompt.md": "Be brief.", "AGENTS.md": "Run the tests."} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Load(path, os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parseFlags(nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ins, err := sessionInstructions(cfg, f)
	if err != nil || len(ins) != 2 || ins[0].Text != "Be brief." || ins[1].Text != "Run the tests." || ins[1].Name != "AGENTS.md" {
		t.Fatalf("from the config: %+v, %v", ins, err)
	}

	other := filepath.Join(dir, "OTHER.md")
	if err := os.WriteFile(other, []byte("Other rules."), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = parseFlags([]string{"--system", "Be kind.", "--instructions", other}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ins, err = sessionInstructions(cfg, f)
	if err != nil || len(ins) != 2 || ins[0].Text != "Be kind." || ins[1].Text != "Other rules." {
		t.Fatalf("from the flags: %+v, %v", ins, err)
	}

	if err := os.Remove(filepath.Join(dir, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	f, _ = parseFlags(nil, io.Discard)
	if ins, err = sessionInstructions(cfg, f); err != nil || len(ins) != 1 {
		t.Fatalf("without the config's AGENTS.md: %+v, %v", ins, err)
	}
	f, _ = parseFlags([]string{"--instructions", filepath.Join(dir, "AGENTS.md")}, io.Discard)
	if _, err = sessionInstructions(cfg, f); err == nil || !strings.Contains(err.Error(), "AGENTS.md") {
		t.Fatalf("a missing --instructions file: %v", err)
	}
}

// TestConfigSystemPromptBoth: system_prompt and system_prompt_file together
// are refused.
func TestConfigSystemPromptBoth(t *testing.T) {
	path, _ := writeConfig(t, `{"system_prompt": "a", "system_prompt_file": "b.md"}`)
	if _, err := config.Load(path, os.Getenv); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Fatalf("err %v", err)
	}
}
