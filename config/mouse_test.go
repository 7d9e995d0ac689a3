package config

import (
	"strings"
	"testing"
)

// TestConfigMouse: "mouse" is true or false, off when unset; anything else
// is an error that names it.
func TestConfigMouse(t *testing.T) {
	for body, want := range map[string]bool{`{}`: false, `{"mouse": true}`: true, `{"mouse": false}`: false} {
		path, _ := writeConfig(t, body)
		cfg, err := Load(path, fakeEnv(nil))
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		if cfg.Mouse != want {
			t.Errorf("%s: mouse %v, want %v", body, cfg.Mouse, want)
		}
	}
	path, _ := writeConfig(t, `{"mouse": "yes"}`)
	if _, err := Load(path, fakeEnv(nil)); err == nil || !strings.Contains(err.Error(), "mouse") {
		t.Errorf(`"mouse": "yes": %v, want an error about mouse`, err)
	}
}
