package config

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"latch/fileinfo"
)

// Who may change a config file. A config file chooses the commands latch
// runs (a stdio server's command, arguments and environment), so latch
// reads one only when no one but the person running latch, or root, can
// change it. The rule is OpenSSH's for authorized_keys (StrictModes),
// with the allowance Debian's OpenSSH makes for a private group:
//
//   - the file, and the folder holding it, are owned by you or by root;
//   - neither may be written by others (o+w), nor by its group (g+w)
//     unless that group is yours alone (as on Debian and Ubuntu, where
//     each user has a group of their own and new files are g+w);
//   - a folder others may write passes with the sticky bit (as /tmp):
//     there only a file's owner may replace it, and the owner is checked;
//   - a symbolic link is followed: the file it leads to, and that file's
//     folder, are checked as well.
//
// Windows has no such mode bits: nothing is checked there.

// trusted reports whether only you (or root) can change the config file
// at path; each reason it cannot is an error naming path.
func (l *loader) trusted(path string) bool {
	if runtime.GOOS == "windows" {
		return true
	}
	problems := trustProblems(path)
	for _, p := range problems {
		l.errs = append(l.errs, fmt.Errorf("config %s: %s", path, p))
	}
	return len(problems) == 0
}

// trustProblems says why someone other than you or root may change the
// file at path: the file itself (the one a link leads to), its folder,
// and the folder of the file a link leads to.
func trustProblems(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return []string{err.Error()}
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if _, serr := os.Stat(abs); serr != nil {
			return []string{errUnwrap(err).Error()}
		}
		real = abs // a pipe (--config <(…)) links nowhere a path names: judged as it stands
	}
	var out []string
	add := func(p, who string) {
		if s := trustProblem(p, who); s != "" {
			out = append(out, s)
		}
	}
	if real == abs {
		add(real, "it")
	} else {
		add(real, "the file it links to, "+real)
	}
	add(filepath.Dir(abs), "its folder "+filepath.Dir(abs))
	if filepath.Dir(real) != filepath.Dir(abs) {
		add(filepath.Dir(real), "the folder of the file it links to, "+filepath.Dir(real))
	}
	return out
}

// trustProblem says why someone other than you or root may change p
// (who, in the message); "" when no one may.
func trustProblem(p, who string) string {
	fi, err := os.Stat(p)
	if err != nil {
		return fmt.Sprintf("%s: %v", who, errUnwrap(err))
	}
	uid, gid, known := fileinfo.Owner(fi)
	if known && uid != 0 && uid != os.Geteuid() {
		return fmt.Sprintf("%s is owned by another user (uid %d), neither you nor root, and the file chooses the commands latch runs; "+
			"it is not read (keep a copy of your own)", who, uid)
	}
	if fi.IsDir() && fi.Mode()&fs.ModeSticky != 0 {
		return "" // only a file's owner may replace it there
	}
	perm := fi.Mode().Perm()
	var writer, bits string
	if perm&0o020 != 0 && !(known && privateGroup(gid)) {
		writer, bits = fmt.Sprintf("its group (gid %d), which is not yours alone,", gid), "g"
	}
	if perm&0o002 != 0 {
		writer, bits = "anyone", bits+"o"
	}
	if writer == "" {
		return ""
	}
	return fmt.Sprintf("%s may write %s (mode %v), and the file chooses the commands latch runs; chmod %s-w %s",
		writer, who, fi.Mode(), bits, p)
}

// privateGroup reports whether group gid is yours alone, as
// /etc/passwd and /etc/group say (see privateGroupIn).
func privateGroup(gid int) bool {
	passwd, err := os.ReadFile("/etc/passwd")
	if err != nil {
		return false
	}
	group, err := os.ReadFile("/etc/group")
	if err != nil {
		return false
	}
	return privateGroupIn(string(passwd), string(group), os.Geteuid(), gid)
}

// privateGroupIn is Debian's rule for a group-writable file: the group
// (listed in group) has exactly one member, you (uid, named in passwd),
// counting both the users whose primary group it is and those the group
// lists. A group the files do not list is not known to be private.
func privateGroupIn(passwd, group string, uid, gid int) bool {
	name, members := "", 0
	for _, f := range fileRecords(passwd) {
		u, err1 := strconv.Atoi(f[2])
		g, err2 := strconv.Atoi(f[3])
		switch {
		case err1 != nil || err2 != nil:
			continue
		case u == uid && name == "":
			name = f[0]
		}
		if g == gid {
			if u != uid {
				return false
			}
			members++
		}
	}
	for _, f := range fileRecords(group) {
		if g, err := strconv.Atoi(f[2]); err != nil || g != gid {
			continue
		}
		for _, m := range strings.Split(f[3], ",") {
			switch m = strings.TrimSpace(m); {
			case m == "":
			case m != name || name == "":
				return false
			default:
				members++
			}
		}
		return members > 0
	}
	return false
}

// fileRecords are the colon-separated records of /etc/passwd or
// /etc/group with at least 4 fields; comments and short lines are
// skipped.
func fileRecords(text string) [][]string {
	var out [][]string
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Split(strings.TrimSpace(line), ":"); len(f) >= 4 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f)
		}
	}
	return out
}
