package gateway

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A token swapped for another of the same length, in the same second as
// the file was read, is refused at the next request: a stat that shows no
// change is not trusted while the file is that new, and its content is
// hashed.
func TestGuardSeesASameSizeEditAtOnce(t *testing.T) {
	const other = "xx-0123456789abcdef" // as long as ciTok
	path, src, _ := clientsFile(t, map[string]string{"ci-bot": ciTok})
	h := clientGuard(t, src)
	for i := range 50 { // every one within racyWindow of the last write
		tok, old := ciTok, other
		if i%2 == 1 {
			tok, old = other, ciTok
		}
		writeClients(t, path, map[string]string{"ci-bot": tok})
		if code, _ := send(h, "/mcp", "Bearer "+old); code != 401 {
			t.Fatalf("edit %d: the token just replaced (same size, same second): %d, want 401", i, code)
		}
		if code, body := send(h, "/mcp", "Bearer "+tok); code != 200 || body != "client=ci-bot" {
			t.Fatalf("edit %d: the new token: %d %q", i, code, body)
		}
	}
}

// Once the file is old enough for its stat to be trusted, a file put in
// its place with the same size and the old modification time (cp -p, a
// restore from a backup) is still seen: its inode and change time differ.
func TestGuardSeesAFileReplacedWithItsOldTimes(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = -time.Hour // every stamp trusted at once: only the stat is looked at
	const other = "xx-0123456789abcdef"
	path, src, _ := clientsFile(t, map[string]string{"ci-bot": ciTok})
	tokens, err := newTokenTable(sharedTok, src)
	if err != nil {
		t.Fatal(err)
	}
	if m := tokens.files[path]; m == nil || !m.trusted {
		t.Skip("this platform's stat gives no inode or change time: every look hashes the file")
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	next := filepath.Join(filepath.Dir(path), "next.json")
	writeClients(t, next, map[string]string{"ci-bot": other})
	if err := os.Chtimes(next, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if _, ok := tokens.match(ciTok); ok {
		t.Error("the old token after its file was replaced (same size and modification time): taken, want refused")
	}
	if name, ok := tokens.match(other); !ok || name != "ci-bot" {
		t.Errorf("the new token: %q %v", name, ok)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, ok := tokens.match(other); ok {
		t.Error("a token whose file was removed: taken, want refused")
	}
}
