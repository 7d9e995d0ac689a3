package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSettingsPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "latch.json")
	if err := os.WriteFile(cfgPath, []byte(`{"model":"from-config","ollama":{"host":"cfg-host:1"},"theme":"light"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name              string
		args              []string
		env               map[string]string
		model, host, mode string
	}{
		{"config only", nil, nil, "from-config", "http://cfg-host:1", "read_only"},
		{"env beats config", nil, map[string]string{"LATCH_MODEL": "from-env", "OLLAMA_HOST": "env-host"}, "from-env", "http://env-host:11434", "read_only"},
		{"flag beats env", []string{"--model", "from-flag", "--host", "https://flag-host", "--mode", "ask"},
			map[string]string{"LATCH_MODEL": "from-env", "OLLAMA_HOST": "env-host"}, "from-flag", "https://flag-host:443", "ask"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"LATCH_CONFIG": cfgPath, "HOME": dir}
			for k, v := range tc.env {
				env[k] = v
			}
			f, err := parseFlags(tc.args, os.Stderr)
			if err != nil {
				t.Fatal(err)
			}
			s, err := loadSettings(f, envOf(env))
			if err != nil {
				t.Fatal(err)
			}
			if s.model != tc.model || s.host.String() != tc.host || s.mode != tc.mode {
				t.Fatalf("got model %q host %q mode %q", s.model, s.host, s.mode)
			}
		})
	}
}

func TestNoModelAnywhereMeansPicker(t *testing.T) {
	dir := t.TempDir()
	f, _ := parseFlags(nil, os.Stderr)
	s, err := loadSettings(f, envOf(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if s.model != "" {
		t.Fatalf("model = %q: latch must not invent a model name", s.model)
	}
}

func TestUsageErrorsExitTwo(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad mode", []string{"--mode", "yolo"}, `--mode: "yolo" is not a mode`},
		{"glob allow", []string{"--allow", "fs__*"}, "matching is exact"},
		{"bad theme flag", []string{"--theme", "neon"}, "--theme: unknown theme"},
		{"missing config", []string{"--config", filepath.Join(dir, "nope.json")}, "nope.json"},
		{"stray argument", []string{"hello"}, "unexpected argument"},
		{"unknown flag", []string{"--nope"}, "latch: unknown flag --nope (see latch --help)\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb strings.Builder
			code := run(tc.args, strings.NewReader(""), &out, &errb, envOf(map[string]string{"HOME": dir}))
			if code != exitUsage || !strings.Contains(errb.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errb.String(), tc.want)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	var out, errb strings.Builder
	if code := run([]string{"--version"}, nil, &out, &errb, envOf(nil)); code != 0 || !strings.HasPrefix(out.String(), "latch ") {
		t.Fatalf("--version: %d %q", code, out.String())
	}
	out.Reset()
	if code := run([]string{"--help"}, nil, &out, &errb, envOf(nil)); code != 0 || !strings.Contains(out.String()+errb.String(), "--model") && !strings.Contains(out.String()+errb.String(), "-model") {
		t.Fatalf("--help: %d %q", code, out.String())
	}
}
