package mcp

import (
	"context"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestChildEnv(t *testing.T) {
	environ := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
		"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u",
		"GH_TOKEN=secret-gh", "OPENAI_API_KEY=secret-openai", "EDITOR=vi", "LCX=no", "lc_all=no",
		"A=b=c", "EMPTY=", "=weird",
	}
	base := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
		"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u",
	}
	secrets := []string{"GH_TOKEN", "HOME"}
	tests := []struct {
		name    string
		cfg     ServerConfig
		secrets []string
		want    []string
	}{
		{"allow-list only", ServerConfig{}, nil, base},
		{"own env added, sorted, and wins", ServerConfig{Env: map[string]string{"Z": "1", "PATH": "/opt/bin", "A": "2"}}, nil,
			[]string{"HOME=/home/u", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u", "A=2", "PATH=/opt/bin", "Z=1"}},
		{"inherit names", ServerConfig{Inherit: []string{"EDITOR", "A", "EMPTY", "NOT_SET"}}, nil,
			append(append([]string{}, base...), "EDITOR=vi", "A=b=c", "EMPTY=")},
		{"inherit all", ServerConfig{InheritAll: true}, nil, environ},
		{"a secret is never inherited by default", ServerConfig{}, secrets,
			[]string{"PATH=/usr/bin:/bin", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u"}},
		{"nor with inherit all", ServerConfig{InheritAll: true}, secrets,
			[]string{"PATH=/usr/bin:/bin", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u",
				"OPENAI_API_KEY=secret-openai", "EDITOR=vi", "LCX=no", "lc_all=no", "A=b=c", "EMPTY=", "=weird"}},
		{"a secret listed by name is inherited", ServerConfig{Inherit: []string{"GH_TOKEN"}}, secrets,
			[]string{"PATH=/usr/bin:/bin", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u", "GH_TOKEN=secret-gh"}},
		{"a secret listed by name with inherit all", ServerConfig{InheritAll: true, Inherit: []string{"GH_TOKEN"}}, []string{"GH_TOKEN"},
			environ},
		{"own env may set a secret's name", ServerConfig{Env: map[string]string{"GH_TOKEN": "own"}}, secrets,
			[]string{"PATH=/usr/bin:/bin", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u", "GH_TOKEN=own"}},
		{"names are case-sensitive", ServerConfig{Inherit: []string{"editor", "gh_token"}}, secrets,
			[]string{"PATH=/usr/bin:/bin", "USER=u", "LOGNAME=u", "SHELL=/bin/sh", "TERM=xterm",
				"LANG=C.UTF-8", "LC_ALL=C", "LC_CTYPE=UTF-8", "TMPDIR=/tmp/u"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := unixEnv.childEnv(environ, tt.cfg, tt.secrets)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestChildEnvWindows(t *testing.T) {
	environ := []string{
		"=C:=C:\\work", "Path=C:\\Windows", "PATHEXT=.COM;.EXE", "SystemRoot=C:\\Windows", "ComSpec=C:\\Windows\\cmd.exe",
		"USERPROFILE=C:\\Users\\u", "TEMP=C:\\Temp", "TMP=C:\\Temp", "APPDATA=C:\\AppData", "LOCALAPPDATA=C:\\Local",
		"HOMEDRIVE=C:", "HOMEPATH=\\Users\\u", "USERNAME=u", "PROCESSOR_ARCHITECTURE=AMD64", "ProgramFiles=C:\\Program Files",
		"SystemDrive=C:", "HOME=C:\\Users\\u", "LANG=en", "Gh_Token=secret", "EDITOR=notepad",
	}
	defaults := environ[1:16]
	tests := []struct {
		name    string
		cfg     ServerConfig
		secrets []string
		want    []string
	}{
		{"allow-list, any case", ServerConfig{}, nil, defaults},
		{"inherit, any case", ServerConfig{Inherit: []string{"editor"}}, nil, append(append([]string{}, defaults...), "EDITOR=notepad")},
		{"own env wins, any case", ServerConfig{Env: map[string]string{"PATH": "D:\\bin"}}, nil,
			append(append([]string{}, defaults[1:]...), "PATH=D:\\bin")},
		{"secret, any case", ServerConfig{InheritAll: true}, []string{"GH_TOKEN"}, append(append([]string{}, environ[:18]...), "EDITOR=notepad")},
		{"secret listed, any case", ServerConfig{Inherit: []string{"gh_token"}}, []string{"GH_TOKEN"},
			append(append([]string{}, defaults...), "Gh_Token=secret")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := windowsEnv.childEnv(environ, tt.cfg, tt.secrets)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestSecretEnvNames(t *testing.T) {
	got := secretEnvNames([]ServerConfig{{Name: "a", TokenEnv: "A_TOKEN"}, {Name: "b"}, {Name: "c", TokenEnv: "C_TOKEN"}, {Name: "d", TokenEnv: "A_TOKEN"}})
	if want := []string{"A_TOKEN", "C_TOKEN"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// TestResolveTokenEnvNotAName: a token pasted into token_env is not echoed
// by the error.
func TestResolveTokenEnvNotAName(t *testing.T) {
	for _, tok := range []string{"ghp-SENTINEL.42", "Bearer SENTINEL42", "SENTINEL42 ", "1SENTINEL42", "SENTINEL/42"} {
		_, err := resolveToken(context.Background(), ServerConfig{TokenEnv: tok}, func(string) string { return "" })
		if err == nil {
			t.Fatalf("%q: no error", tok)
		}
		if strings.Contains(err.Error(), "SENTINEL") {
			t.Errorf("%q: the value is echoed: %v", tok, err)
		}
		if !strings.Contains(err.Error(), "token_env: not a variable name") {
			t.Errorf("%q: err = %v", tok, err)
		}
	}
	// A GitHub token is a valid variable name: not set, and not echoed.
	for _, tok := range []string{"ghp_SENTINEL0123456789abcdef", "github_pat_11SENTINEL_x", "sk_live_SENTINEL"} {
		_, err := resolveToken(context.Background(), ServerConfig{TokenEnv: tok}, func(string) string { return "" })
		if err == nil || strings.Contains(err.Error(), "SENTINEL") || !strings.Contains(err.Error(), "not set") {
			t.Errorf("%q: err = %v", tok, err)
		}
	}
	// A valid name is still named.
	_, err := resolveToken(context.Background(), ServerConfig{TokenEnv: "MY_TOKEN"}, func(string) string { return "" })
	if err == nil || err.Error() != "token_env: variable MY_TOKEN is not set" {
		t.Fatalf("err = %v", err)
	}
}

// TestStdioMinimalEnv runs the fake stdio server with a secret in latch's
// environment, named by another server's token_env, and checks what each
// stdio server sees.
func TestStdioMinimalEnv(t *testing.T) {
	const secretVar, secret = "LATCH_TEST_ENV_SECRET", "SENTINEL-env-7731"
	const otherVar, other = "LATCH_TEST_ENV_OTHER", "other-value"
	mk := func(name string) ServerConfig { return fakeServer(t, name, "-getenv") } // builds the fake first
	homeVar := "HOME"
	if runtime.GOOS == "windows" {
		homeVar = "USERPROFILE"
	}
	home := os.Getenv(homeVar)
	if home == "" {
		home = t.TempDir()
		t.Setenv(homeVar, home)
	}
	t.Setenv(secretVar, secret)
	t.Setenv(otherVar, other)

	minimal := mk("minimal")
	minimal.Env = map[string]string{"LATCH_TEST_OWN": "own-value"}
	all := mk("all")
	all.InheritAll = true
	listed := mk("listed")
	listed.Inherit = []string{secretVar}
	// The HTTP server whose credential the variable is; never connected.
	crm := ServerConfig{Name: "crm", Transport: TransportHTTP, URL: "https://127.0.0.1:1/mcp", TokenEnv: secretVar, Disabled: true}

	m, _ := startFake(t, Options{}, minimal, all, listed, crm)
	for _, name := range []string{"minimal", "all", "listed"} {
		waitReady(t, m, name, 10*time.Second)
	}
	getenv := func(server, name string) string {
		t.Helper()
		return mustCall(t, m, server+"__getenv", map[string]any{"name": name}).Text
	}
	notSet := func(name string) string { return name + " is not set" }

	checks := []struct{ server, name, want string }{
		{"minimal", "PATH", os.Getenv("PATH")},
		{"minimal", homeVar, home},
		{"minimal", "LATCH_TEST_OWN", "own-value"},
		{"minimal", secretVar, notSet(secretVar)},
		{"minimal", otherVar, notSet(otherVar)},
		{"all", "PATH", os.Getenv("PATH")},
		{"all", otherVar, other},
		{"all", secretVar, notSet(secretVar)},
		{"all", "LATCH_TEST_OWN", notSet("LATCH_TEST_OWN")},
		{"listed", secretVar, secret},
		{"listed", otherVar, notSet(otherVar)},
		{"listed", "PATH", os.Getenv("PATH")},
	}
	for _, c := range checks {
		got := getenv(c.server, c.name)
		// The manager redacts known credentials from what servers send,
		// so the secret comes back as the marker when it was seen.
		if got != c.want && !(c.want == secret && got == redacted) {
			t.Errorf("%s sees %s = %q, want %q", c.server, c.name, got, c.want)
		}
	}
}
