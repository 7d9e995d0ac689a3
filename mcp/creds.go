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
	switch {
	case c.Token != "":
		return trimToken(c.Token), nil
	case c.TokenEnv != "":
		return tokenFromEnv(c.TokenEnv, getenv)
	case c.TokenFile != "":
		return tokenFromFile(c.TokenFile)
	case len(c.TokenCommand) > 0:
		return tokenFromCommand(ctx, c.TokenCommand)
	}
	return "", nil
}

// tokenFromEnv reads the token from the variable name (token_env).
func tokenFromEnv(name string, getenv func(string) string) (string, error) {
	if !ValidEnvName(name) {
		// Not named: it may be the token itself, put in the wrong field.
		return "", errors.New("token_env: not a variable name (is it the token itself? put the variable's name here)")
	}
	v := getenv(name)
	if v == "" {
		return "", tokenEnvUnset(name)
	}
	return trimToken(v), nil
}

// tokenFromFile reads the token from the file at path (token_file).
func tokenFromFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("token_file: %s not found", path)
		}
		return "", fmt.Errorf("token_file: cannot read %s", path)
	}
	t := trimToken(string(b))
	if t == "" {
		return "", fmt.Errorf("token_file: %s is empty", path)
	}
	return t, nil
}

// tokenFromCommand reads the token from what argv prints (token_command),
// within tokenCommandTimeout.
func tokenFromCommand(ctx context.Context, argv []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, tokenCommandTimeout)
	defer cancel()
	out, err := runTokenCommand(ctx, argv)
	name := argv[0]
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("token_command: %s did not finish within %s", name, tokenCommandTimeout)
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("token_command: %s failed (%s)", name, ee.ProcessState)
		}
		return "", fmt.Errorf("token_command: cannot run %s", name)
	}
	t := trimToken(out)
	if t == "" {
		return "", fmt.Errorf("token_command: %s printed nothing", name)
	}
	return t, nil
}

// runTokenCommand runs argv until ctx ends and returns its stdout.
func runTokenCommand(ctx context.Context, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	// In its own process group, all of which is killed at the timeout: a
	// child it left running (`helper &`) would otherwise hold its stdout
	// open, and Wait with it, long past the timeout.
	setProcessGroup(cmd)
	cmd.Cancel = func() error {
		killGroup(cmd)
		return nil
	}
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
