package config

import (
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestLoadConfigServe(t *testing.T) {
	path, dir := writeConfig(t, `{"mcpServers": {"mem": {"command": "x"}, "fs": {"command": "y"}},
		"serve": {"token_file": "tok", "allow_remote": true, "tls_cert": "c.pem", "tls_key": "~/k.pem",
		"expose": ["mem", "fs__read_text_file"], "park_unlisted": true, "approval_ttl": "1h", "await_poll": "5s",
		"max_concurrent_per_client": 4, "max_polls_per_client": 16, "rate_per_client": 10, "burst_per_client": 30,
		"park_max_calls_per_client": 5, "park_max_bytes_per_client": 1048576, "park_max_calls": 50, "park_max_bytes": 8388608,
		"task_results_max": 7, "task_results_max_bytes": 2097152, "http_sessions_max": 9, "http_session_idle": "10m",
		"notify_command": ["notify-send", "latch: a call waits"]}}`)
	cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	want := ServeConfig{TokenFile: filepath.Join(dir, "tok"), AllowRemote: true, TLSCert: filepath.Join(dir, "c.pem"),
		TLSKey: filepath.Join(dir, "k.pem"), Expose: []string{"mem", "fs__read_text_file"},
		ParkUnlisted: true, ApprovalTTL: time.Hour, AwaitPoll: 5 * time.Second,
		NotifyCommand: []string{"notify-send", "latch: a call waits"},
		ServeLimits: ServeLimits{MaxConcurrentPerClient: 4, MaxPollsPerClient: 16, RatePerClient: 10, BurstPerClient: 30,
			ParkMaxCallsPerClient: 5, ParkMaxBytesPerClient: 1 << 20, ParkMaxCalls: 50, ParkMaxBytes: 8 << 20,
			TaskResultsMax: 7, TaskResultsMaxBytes: 2 << 20, HTTPSessionsMax: 9, HTTPSessionIdle: 10 * time.Minute}}
	if !reflect.DeepEqual(cfg.Serve, want) {
		t.Errorf("serve: %+v\nwant  %+v", cfg.Serve, want)
	}
	if cfg.Foreign {
		t.Error("a file with a serve section is taken for another app's")
	}
}

func TestLoadConfigServeErrors(t *testing.T) {
	tests := []struct{ name, body, field, want string }{
		{"unknown key", `{"serve": {"token_evn": "T"}}`, "serve", `unknown key "token_evn"; did you mean "token_env"?`},
		{"not an object", `{"serve": true}`, "serve", "expected an object, got boolean"},
		{"token_env empty", `{"serve": {"token_env": ""}}`, "serve.token_env", "must not be empty"},
		{"both tokens", `{"serve": {"token_env": "T", "token_file": "f"}}`, "serve.token_env, serve.token_file", "both given"},
		{"allow_remote type", `{"serve": {"allow_remote": "yes"}}`, "serve.allow_remote", "expected true or false, got string"},
		{"cert without key", `{"serve": {"tls_cert": "c.pem"}}`, "serve.tls_cert, serve.tls_key", "give both"},
		{"park_unlisted type", `{"serve": {"park_unlisted": 1}}`, "serve.park_unlisted", "expected true or false, got number"},
		{"approval_ttl", `{"serve": {"approval_ttl": "soon"}}`, "serve.approval_ttl", "is not a duration"},
		{"notify_command a string", `{"serve": {"notify_command": "notify-send hi"}}`, "serve.notify_command", "expected an array of strings"},
		{"notify_command empty", `{"serve": {"notify_command": []}}`, "serve.notify_command", "give the program to run"},
		{"max_concurrent_per_client 0", `{"serve": {"max_concurrent_per_client": 0}}`, "serve.max_concurrent_per_client",
			"expected a whole number greater than 0, got 0"},
		{"rate_per_client type", `{"serve": {"rate_per_client": "20/s"}}`, "serve.rate_per_client",
			"expected a whole number greater than 0, got string"},
		{"park_max_bytes_per_client 0", `{"serve": {"park_max_bytes_per_client": 0}}`, "serve.park_max_bytes_per_client",
			"expected a whole number greater than 0, got 0"},
		{"park_max_calls type", `{"serve": {"park_max_calls": "many"}}`, "serve.park_max_calls",
			"expected a whole number greater than 0, got string"},
		{"task_results_max negative", `{"serve": {"task_results_max": -1}}`, "serve.task_results_max",
			"expected a whole number greater than 0, got -1"},
		{"http_session_idle", `{"serve": {"http_session_idle": "0s"}}`, "serve.http_session_idle", "must be greater than 0"},
		{"park key misspelt", `{"serve": {"park_max_call": 3}}`, "serve", `unknown key "park_max_call"; did you mean "park_max_calls"?`},
		{"expose type", `{"serve": {"expose": "mem"}}`, "serve.expose", "expected an array of strings, got string"},
		{"expose names no server", `{"mcpServers": {"mem": {"command": "x"}}, "serve": {"expose": ["mem", "fs__read"]}}`,
			"serve.expose", `entry 1 ("fs__read") names no configured server`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, dir := writeConfig(t, tt.body)
			cfg, err := Load(path, fakeEnv(map[string]string{"HOME": dir}))
			if err == nil {
				t.Fatalf("no error; config %+v", cfg)
			}
			if want := []string{"config " + path + ": ", tt.field + ": ", tt.want}; !anyLineHasAll(err.Error(), want) {
				t.Errorf("no error line has all of %q; got:\n%v", want, err)
			}
		})
	}
}
