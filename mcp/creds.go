package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"latch/procgroup"
)

// tokenCommandTimeout bounds a token_command.
var tokenCommandTimeout = 10 * time.Second

// tokenCommandWaitDelay bounds how long a token_command's output is waited
// for after it timed out or exited (exec.Cmd.WaitDelay).
var tokenCommandWaitDelay = time.Second

// resolveToken reads the server's credential now, from wherever the config
// says it lives. It is called each time a client is built, never earlier,
// and the value is never cached past a close. Errors name the source (the
// variable, file or command), never the value or a command's output.
func resolveToken(ctx context.Context, c ServerConfig, getenv func(string) string) (string, error) {
	return resolveSecret(ctx, "token", secretSource{c.Token, c.TokenEnv, c.TokenFile, c.TokenCommand}, getenv)
}

// secretSource is where a secret lives: a literal, a variable, a file or
// a command (the first one set wins).
type secretSource struct {
	literal, env, file string
	command            []string
}

// resolveSecret reads a secret from its source now. field names the
// config fields in errors ("token" for token_env, token_file…).
func resolveSecret(ctx context.Context, field string, src secretSource, getenv func(string) string) (string, error) {
	switch {
	case src.literal != "":
		return trimToken(src.literal), nil
	case src.env != "":
		return tokenFromEnv(field, src.env, getenv)
	case src.file != "":
		return tokenFromFile(field, src.file)
	case len(src.command) > 0:
		return tokenFromCommand(ctx, field, src.command)
	}
	return "", nil
}

// tokenFromEnv reads the secret from the variable name (token_env).
func tokenFromEnv(field, name string, getenv func(string) string) (string, error) {
	if !ValidEnvName(name) {
		// Not named: it may be the secret itself, put in the wrong field.
		return "", fmt.Errorf("%s_env: not a variable name (is it the secret itself? put the variable's name here)", field)
	}
	v := getenv(name)
	if v == "" {
		if field != "token" {
			return "", fmt.Errorf("%s_env: environment variable %s is not set or empty", field, name)
		}
		return "", tokenEnvUnset(name)
	}
	return trimToken(v), nil
}

// tokenFromFile reads the secret from the file at path (token_file).
func tokenFromFile(field, path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s_file: %s not found", field, path)
		}
		return "", fmt.Errorf("%s_file: cannot read %s", field, path)
	}
	t := trimToken(string(b))
	if t == "" {
		return "", fmt.Errorf("%s_file: %s is empty", field, path)
	}
	return t, nil
}

// tokenFromCommand reads the secret from what argv prints (token_command),
// within tokenCommandTimeout.
func tokenFromCommand(ctx context.Context, field string, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tokenCommandTimeout)
	defer cancel()
	out, err := runTokenCommand(ctx, argv)
	name := argv[0]
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("%s_command: %s did not finish within %s", field, name, tokenCommandTimeout)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("%s_command: %s failed (%s)", field, name, ee.ProcessState)
		}
		return "", fmt.Errorf("%s_command: cannot run %s", field, name)
	}
	t := trimToken(out)
	if t == "" {
		return "", fmt.Errorf("%s_command: %s printed nothing", field, name)
	}
	return t, nil
}

// runTokenCommand runs argv until ctx ends and returns its stdout.
func runTokenCommand(ctx context.Context, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// In its own process group, all of which is killed at the timeout: a
	// child it left running (`helper &`) would otherwise hold its stdout
	// open, and Wait with it, long past the timeout.
	procgroup.KillOnCancel(cmd)
	// However the pipe is held (a child that left the group), Wait
	// returns this long after the timeout or the command's exit.
	cmd.WaitDelay = tokenCommandWaitDelay
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && ctx.Err() == nil {
		err = nil // it exited well; a child it left holds stdout
	}
	return out.String(), err
}

// trimToken trims a credential the way it is sent: surrounding whitespace
// (a newline from a file or a command, a space pasted along) is never part
// of a token. The redactor looks for exactly this form.
func trimToken(s string) string { return strings.TrimSpace(s) }
