package permissions

import (
	"runtime"
	"testing"
)

// TestPathCaseFollowsThePlatform: with no PathCase set (PathCaseOS),
// paths compare case-folded on the platforms whose file systems ignore
// case by default (macOS, Windows) and exactly elsewhere, as
// docs/PERMISSIONS.md says; PathCaseFold and PathCaseExact hold on every
// platform. On the platform the test runs on, the README's deny rule
// meets ~/.SSH/id_rsa exactly when the platform folds.
func TestPathCaseFollowsThePlatform(t *testing.T) {
	for _, tc := range []struct {
		goos string
		want bool
	}{{"darwin", true}, {"windows", true}, {"ios", true}, {"linux", false}, {"freebsd", false}, {"openbsd", false}} {
		if got := PathCaseOS.folds(tc.goos); got != tc.want {
			t.Errorf("PathCaseOS on %s folds %v, want %v", tc.goos, got, tc.want)
		}
		if !PathCaseFold.folds(tc.goos) || PathCaseExact.folds(tc.goos) {
			t.Errorf("on %s: PathCaseFold or PathCaseExact follows the platform", tc.goos)
		}
	}
	g := NewGate(Policy{Mode: Auto, Home: testHome, Rules: []Rule{readmeDeny(t)}})
	folds := runtime.GOOS == "darwin" || runtime.GOOS == "windows" || runtime.GOOS == "ios"
	if got := denied(g, fsRead("~/.SSH/id_rsa")); got != folds {
		t.Errorf("on %s, ~/.SSH/id_rsa denied by ~/.ssh/**: %v, want %v", runtime.GOOS, got, folds)
	}
	if !denied(g, fsRead("~/.ssh/id_rsa")) {
		t.Errorf("on %s, ~/.ssh/id_rsa not denied by ~/.ssh/**", runtime.GOOS)
	}
}
