package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
)

// skipWithoutModes skips where there are no mode bits to check.
func skipWithoutModes(t *testing.T) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("Windows has no such mode bits: nothing is checked there")
	}
}

// chmod sets a mode whatever the umask.
func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// sharedGroup is a group this test may give its files that is not the
// user's alone (see privateGroup); it skips when there is none.
func sharedGroup(t *testing.T) int {
	t.Helper()
	var gids []int
	if os.Geteuid() == 0 {
		b, _ := os.ReadFile("/etc/group")
		for _, f := range fileRecords(string(b)) {
			if g, err := strconv.Atoi(f[2]); err == nil {
				gids = append(gids, g)
			}
		}
	} else {
		gids, _ = os.Getgroups()
	}
	for _, g := range gids {
		if !privateGroup(g) {
			return g
		}
	}
	t.Skip("no group to give a file that is not this user's alone")
	return 0
}

// refused checks that err is one line naming path that says why and the
// command that fixes it.
func refused(t *testing.T, what string, err error, parts ...string) {
	t.Helper()
	if err == nil || !anyLineHasAll(err.Error(), parts) {
		t.Errorf("%s: err = %v\nwant a line with %q", what, err, parts)
	}
}

// TestConfigServersDLinkTargetRefused: a servers.d file that links to a
// file others may write, or to a file in a folder others may write, is
// refused, naming the file it links to; so is a group-writable servers.d
// folder. The link's own mode does not count.
func TestConfigServersDLinkTargetRefused(t *testing.T) {
	skipWithoutModes(t)
	path, dir := writeConfig(t, `{}`)
	d := writeServersD(t, dir, nil)
	elsewhere := t.TempDir()
	target := filepath.Join(elsewhere, "crm.json")
	if err := os.WriteFile(target, []byte(`{"command": "crm-mcp"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(d, "crm.json")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	load := func() error {
		_, err := Load(path, fakeEnv(nil))
		return err
	}
	if err := load(); err != nil {
		t.Fatalf("a link to a private file: %v", err)
	}

	chmod(t, target, 0o666)
	refused(t, "a link to a world-writable file", load(), "config "+link+":", "anyone may write the file it links to, "+target,
		"-w "+target)
	chmod(t, target, 0o600)

	chmod(t, elsewhere, 0o777)
	refused(t, "a link to a file in a world-writable folder", load(), "config "+link+":",
		"anyone may write the folder of the file it links to, "+elsewhere, "chmod o-w "+elsewhere)
	chmod(t, elsewhere, 0o700)

	gid := sharedGroup(t)
	if err := os.Chown(d, -1, gid); err != nil {
		t.Skipf("cannot give the folder group %d: %v", gid, err)
	}
	chmod(t, d, 0o770)
	refused(t, "a servers.d its shared group may write", load(), "config "+d+":", "may write it", "chmod g-w "+d)
}

// TestConfigOwnedByAnotherUserRefused: a config file, or its folder,
// owned by someone who is neither you nor root is refused, as ssh refuses
// such an authorized_keys; one owned by root is read.
func TestConfigOwnedByAnotherUserRefused(t *testing.T) {
	skipWithoutModes(t)
	if os.Geteuid() != 0 {
		t.Skip("giving a file to another user needs root")
	}
	const other = 65534 // nobody
	path, dir := writeConfig(t, `{}`)
	for _, p := range []string{path, dir} {
		if err := os.Chown(p, other, -1); err != nil {
			t.Fatal(err)
		}
		_, err := Load(path, fakeEnv(nil))
		refused(t, p+" owned by another user", err, "config "+path+":", "owned by another user (uid 65534)")
		if err := os.Chown(p, 0, -1); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(path, fakeEnv(nil)); err != nil {
		t.Errorf("owned by root: %v", err)
	}
}

// TestConfigEnvFileWritableByOthersRefused: a VS Code envFile chooses a
// server's environment (LD_PRELOAD, NODE_OPTIONS): one others may write
// is refused.
func TestConfigEnvFileWritableByOthersRefused(t *testing.T) {
	skipWithoutModes(t)
	path, dir := writeConfig(t, `{"servers": {"s": {"type": "stdio", "command": "x", "envFile": "${workspaceFolder}/.env"}}}`)
	env := filepath.Join(dir, ".env")
	if err := os.WriteFile(env, []byte("NODE_OPTIONS=--require=/tmp/x.js\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, fakeEnv(nil)); err != nil {
		t.Fatalf("a private env file: %v", err)
	}
	chmod(t, env, 0o646)
	_, err := Load(path, fakeEnv(nil))
	refused(t, "a world-writable envFile", err, "config "+env+":", "anyone may write it", "chmod o-w "+env)
}

// TestPrivateGroupIn: Debian's rule for a group-writable file.
func TestPrivateGroupIn(t *testing.T) {
	passwd := "root:x:0:0::/root:/bin/sh\nann:x:1000:1000::/home/ann:/bin/sh\nbob:x:1001:1001::/home/bob:/bin/sh\n" +
		"cat:x:1002:100::/home/cat:/bin/sh\ndan:x:1003:100::/home/dan:/bin/sh\n# a comment\n"
	group := "root:x:0:\nann:x:1000:\nbob:x:1001:ann\nusers:x:100:\nstaff:x:50:ann\nteam:x:60:ann,bob\nempty:x:70:\n"
	for _, c := range []struct {
		gid  int
		want bool
		why  string
	}{
		{1000, true, "ann's own group, no one else in it"},
		{1001, false, "bob's primary group"},
		{100, false, "the primary group of two others"},
		{50, true, "a group whose one member is ann"},
		{60, false, "a group of two"},
		{70, false, "a group with no member"},
		{80, false, "a group the file does not list"},
	} {
		if got := privateGroupIn(passwd, group, 1000, c.gid); got != c.want {
			t.Errorf("gid %d (%s): %v, want %v", c.gid, c.why, got, c.want)
		}
	}
	if privateGroupIn(passwd, group, 4242, 1000) {
		t.Error("a user the passwd file does not list has no private group")
	}
}

// TestConfigFromAPipeLoads: --config <(…) names a pipe that no path
// leads to; it is judged as it stands (yours, in a folder only you may
// read) and loads.
func TestConfigFromAPipeLoads(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/fd/N naming a pipe: checked on Linux")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		_, _ = w.WriteString(`{"mcpServers": {"crm": {"command": "crm-mcp"}}}`)
		w.Close()
	}()
	cfg, err := Load("/dev/fd/"+strconv.Itoa(int(r.Fd())), fakeEnv(nil))
	if err != nil || len(cfg.Servers) != 1 {
		t.Fatalf("a config from a pipe: %v", err)
	}
}

// TestConfigProjectFileWritableByOthersRefused: ./latch.json, the file a
// project may hold, is refused as any config file is.
func TestConfigProjectFileWritableByOthersRefused(t *testing.T) {
	skipWithoutModes(t)
	_, dir := writeConfig(t, `{"mcpServers": {"crm": {"command": "crm-mcp"}}}`)
	t.Chdir(dir)
	chmod(t, "latch.json", 0o646)
	_, err := findAndLoad("", fakeEnv(map[string]string{"XDG_CONFIG_HOME": t.TempDir()}))
	refused(t, "a world-writable ./latch.json", err, "config "+filepath.Join(dir, "latch.json")+":", "anyone may write it", "chmod o-w "+filepath.Join(dir, "latch.json"))
}

// TestConfigWritableByOthersRefused: a config file (found or given with
// --config) that others may write, or whose folder they may, is refused,
// the error naming the path and the chmod that fixes it; the same file
// and folder with their modes fixed load.
func TestConfigWritableByOthersRefused(t *testing.T) {
	skipWithoutModes(t)
	path, dir := writeConfig(t, `{"mcpServers": {"crm": {"command": "crm-mcp"}}}`)
	load := func() error {
		_, err := findAndLoad(path, fakeEnv(nil))
		return err
	}
	if err := load(); err != nil {
		t.Fatalf("a private config: %v", err)
	}

	chmod(t, path, 0o666)
	refused(t, "a world-writable --config file", load(), "config "+path+":", "anyone may write it", "-w "+path)
	chmod(t, path, 0o600)

	chmod(t, dir, 0o777)
	refused(t, "a config in a world-writable folder", load(), "config "+path+":", "anyone may write its folder "+dir,
		"chmod o-w "+dir)
	chmod(t, dir, 0o777|os.ModeSticky) // sticky, as /tmp: only a file's owner may replace it
	if err := load(); err != nil {
		t.Errorf("a config of one's own in a sticky folder: %v", err)
	}
	chmod(t, dir, 0o700)

	gid := sharedGroup(t)
	if err := os.Chown(path, -1, gid); err != nil {
		t.Skipf("cannot give the file group %d: %v", gid, err)
	}
	chmod(t, path, 0o660)
	refused(t, "a config its shared group may write", load(), "config "+path+":",
		"its group (gid "+strconv.Itoa(gid)+"), which is not yours alone, may write it", "chmod g-w "+path)
}
