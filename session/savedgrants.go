package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"latch/permissions"
)

// Saved grants ("allow always": `A` in the modal, /allow NAME --always) are
// kept in a small JSON file, by default $XDG_CONFIG_HOME/latch/grants.json:
//
//	{"grants": [{"server": "fs", "tool": "write_file", "name": "fs__write_file",
//	             "digest": "…", "description": "…", "saved": "2026-…"}]}
//
// Each covers one tool of one server as it was defined when it was saved
// (digest): when the server changes the tool's description or schema, the
// grant no longer applies and latch asks again. The file is only ever
// written by the methods below that the UI calls on a keypress or a command
// of the person at the keyboard; nothing a model or a server sends reaches
// them. A file that cannot be read is reported once and treated as empty.

// grantsFileName is the name of the saved grants file in latch's config folder.
const grantsFileName = "grants.json"

// maxGrantsFile bounds what is read of the grants file.
const maxGrantsFile = 1 << 20

// GrantsFile returns where saved grants are kept:
// $XDG_CONFIG_HOME/latch/grants.json, XDG_CONFIG_HOME defaulting to
// ~/.config (a relative XDG_CONFIG_HOME is ignored, as the XDG spec says).
// It is "" when neither is set: then nothing is saved.
func GrantsFile(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "latch", grantsFileName)
}

// savedEntry is one saved grant as the file holds it.
type savedEntry struct {
	Server      string    `json:"server"`
	Tool        string    `json:"tool"`           // the tool's original name on the server
	Name        string    `json:"name,omitempty"` // the model-facing name when it was saved
	Digest      string    `json:"digest"`
	Description string    `json:"description,omitempty"` // to say what changed
	Saved       time.Time `json:"saved,omitzero"`
}

func (e savedEntry) grant() permissions.SavedGrant {
	return permissions.SavedGrant{Server: e.Server, Tool: e.Tool, Digest: e.Digest}
}

// label is how the entry is named to the user.
func (e savedEntry) label() string {
	if e.Name != "" {
		return e.Name
	}
	return e.Server + permissions.NamespaceSep + e.Tool
}

// grantsDoc is the file's layout; unknown fields are ignored.
type grantsDoc struct {
	Grants []json.RawMessage `json:"grants"`
}

// grantStore is the saved grants file and what was read of it.
type grantStore struct {
	path string

	mu      sync.Mutex
	entries []savedEntry
	problem string // why the file could not be used when it was loaded ("" when it could)
	ignored int    // entries skipped when it was loaded (no server, tool or digest)
	noted   map[string]bool
}

// openGrantStore reads the saved grants at path; nil when path is "".
func openGrantStore(path string) *grantStore {
	if path == "" {
		return nil
	}
	st := &grantStore{path: path, noted: map[string]bool{}}
	entries, ignored, err := readGrants(path)
	if err != nil {
		st.problem = err.Error()
	}
	st.entries, st.ignored = entries, ignored
	return st
}

// readGrants reads the grants file. A missing file holds no grants; one that
// cannot be used is an error, and holds none (fail closed). Entries without a
// server, a tool or a digest, or that are not objects, are skipped and
// counted.
func readGrants(path string) (entries []savedEntry, ignored int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = f.Close() }() // read only
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, 0, err
	case !info.Mode().IsRegular():
		return nil, 0, errors.New("not a regular file")
	case runtime.GOOS != "windows" && info.Mode().Perm()&0o022 != 0:
		return nil, 0, fmt.Errorf("others may write to it (mode %v): run chmod 600 on it", info.Mode().Perm())
	}
	raw, err := io.ReadAll(io.LimitReader(f, maxGrantsFile+1))
	if err != nil {
		return nil, 0, err
	}
	if len(raw) > maxGrantsFile {
		return nil, 0, fmt.Errorf("larger than %d bytes", maxGrantsFile)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, 0, nil
	}
	var doc grantsDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, 0, fmt.Errorf("not valid grants JSON: %w", err)
	}
	for _, r := range doc.Grants {
		var e savedEntry
		if json.Unmarshal(r, &e) != nil || !e.grant().Valid() {
			ignored++
			continue
		}
		entries = upsert(entries, e)
	}
	return entries, ignored, nil
}

// upsert puts e in entries, replacing the entry for the same server and tool.
func upsert(entries []savedEntry, e savedEntry) []savedEntry {
	for i, old := range entries {
		if old.Server == e.Server && old.Tool == e.Tool {
			entries[i] = e
			return entries
		}
	}
	return append(entries, e)
}

// grants returns what the gate should apply.
func (st *grantStore) grants() []permissions.SavedGrant {
	if st == nil {
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]permissions.SavedGrant, 0, len(st.entries))
	for _, e := range st.entries {
		out = append(out, e.grant())
	}
	return out
}

// find returns the first saved entry match accepts.
func (st *grantStore) find(match func(savedEntry) bool) (savedEntry, bool) {
	if st == nil {
		return savedEntry{}, false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, e := range st.entries {
		if match(e) {
			return e, true
		}
	}
	return savedEntry{}, false
}

// update reads the file afresh (another latch may have changed it), applies
// change to its entries and writes the result. It refuses to overwrite a file
// it cannot read: what the person wrote there is not lost.
func (st *grantStore) update(change func([]savedEntry) []savedEntry) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	// Another latch may save at the same moment: the read, the change and
	// the write happen under an OS lock on grants.json.lock, so neither
	// update is lost.
	unlock, err := LockPath(st.path + ".lock")
	if err != nil {
		return fmt.Errorf("%s: %w", st.path, err)
	}
	defer unlock()
	entries, _, err := readGrants(st.path)
	if err != nil {
		return fmt.Errorf("%s cannot be read (%v): fix or delete it first", st.path, err)
	}
	entries = change(entries)
	if err := writeGrants(st.path, entries); err != nil {
		return err
	}
	st.entries, st.problem, st.ignored = entries, "", 0
	return nil
}

// writeGrants writes entries to path atomically: a temporary file in the same
// folder (0600), synced, then renamed over path. The folder is made 0700.
func writeGrants(path string, entries []savedEntry) error {
	doc := struct {
		Grants []savedEntry `json:"grants"`
	}{Grants: entries}
	if doc.Grants == nil {
		doc.Grants = []savedEntry{}
	}
	raw, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(raw, '\n'), 0o600)
}

// SavedGrantsFile is where saved grants are kept, "" when they are off.
func (s *Session) SavedGrantsFile() string {
	if s.saved == nil {
		return ""
	}
	return s.saved.path
}

var errNoGrantsFile = errors.New("saved grants are off: latch has no config folder (set HOME or XDG_CONFIG_HOME)")

// GrantAlways allows a tool (by its model-facing name) in this and later
// sessions, as it is defined now (/allow NAME --always): the grant is saved
// to the grants file. Only the person at the keyboard calls it.
func (s *Session) GrantAlways(name string) error {
	if s.saved == nil {
		return errNoGrantsFile
	}
	if s.servers == nil {
		return errNoServers
	}
	t, ok := s.servers.Lookup(name)
	if !ok {
		return fmt.Errorf("no tool %q among the connected servers' tools (/tools lists them)", name)
	}
	if t.Digest == "" {
		return fmt.Errorf("%s has no known definition to save a grant for", name)
	}
	return s.saveGrant(permissions.Call{Server: t.Server, Tool: t.Original, Name: t.Name, Digest: t.Digest}, t.Description)
}

// saveGrant saves a grant for c's tool as defined now, and applies it.
func (s *Session) saveGrant(c permissions.Call, description string) error {
	if s.saved == nil {
		return errNoGrantsFile
	}
	e := savedEntry{Server: c.Server, Tool: c.Tool, Name: c.Name, Digest: c.Digest, Description: description,
		Saved: time.Now().UTC().Truncate(time.Second)}
	if !e.grant().Valid() {
		return fmt.Errorf("%s has no known definition to save a grant for", c.Name)
	}
	if err := s.saved.update(func(es []savedEntry) []savedEntry { return upsert(es, e) }); err != nil {
		return err
	}
	s.gate.AddSaved(e.grant())
	return nil
}

// answerSaved applies `A` in the modal: the call runs, and its tool is
// allowed always. When the grant cannot be saved, the tool is allowed for
// the session instead, and the user is told why.
func (s *Session) answerSaved(c *toolCall) {
	if err := s.saveGrant(c.perm, c.tool.Description); err != nil {
		s.grant(c.perm)
		s.publish(&Notice{Header: s.header(TypeNotice), Text: "could not save the grant for " + c.name + ": " +
			err.Error() + "; it is allowed for this session only"})
		return
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: c.name + " is allowed always (saved in " + s.saved.path +
		"; /revoke " + c.name + " undoes it)"})
}

// Revoke removes the saved grant and the session grant of a tool (by its
// model-facing name, or server__tool for a saved grant of a server not
// connected) and says what it removed. Entries of the config or --allow
// are not revoked here.
func (s *Session) Revoke(name string) (removed []string, err error) {
	if s.gate.Revoke(name) {
		s.mu.Lock()
		delete(s.set.grants, name)
		s.mu.Unlock()
		s.publishSettings()
		removed = append(removed, "the session grant for "+name)
	}
	if s.saved != nil {
		server, tool := "", ""
		if s.servers != nil {
			if t, ok := s.servers.Lookup(name); ok {
				server, tool = t.Server, t.Original
			}
		}
		match := func(e savedEntry) bool {
			return e.Server == server && e.Tool == tool || e.Name == name ||
				e.Server+permissions.NamespaceSep+e.Tool == name
		}
		if _, ok := s.saved.find(match); ok {
			var gone []savedEntry
			err = s.saved.update(func(es []savedEntry) []savedEntry {
				kept := es[:0:0]
				for _, e := range es {
					if match(e) {
						gone = append(gone, e)
					} else {
						kept = append(kept, e)
					}
				}
				return kept
			})
			if err == nil {
				for _, e := range gone {
					s.gate.RemoveSaved(e.Server, e.Tool)
					removed = append(removed, "the saved grant for "+e.label()+" (from "+s.saved.path+")")
				}
			}
		}
	}
	if err != nil {
		return removed, err
	}
	if len(removed) == 0 {
		return nil, fmt.Errorf("%s has no saved or session grant (/allow lists them; entries of the config and --allow are changed there)", name)
	}
	return removed, nil
}

// noteSavedChanged tells the user, once per definition, that a tool they
// allowed always changed since, so it is asked again.
func (s *Session) noteSavedChanged(c *toolCall) {
	if s.saved == nil || !s.gate.SavedStale(c.perm) {
		return
	}
	e, ok := s.saved.find(func(e savedEntry) bool { return e.Server == c.perm.Server && e.Tool == c.perm.Tool })
	if !ok {
		return
	}
	s.saved.mu.Lock()
	key := c.perm.Server + "\x00" + c.perm.Tool + "\x00" + c.perm.Digest
	seen := s.saved.noted[key]
	s.saved.noted[key] = true
	s.saved.mu.Unlock()
	if seen {
		return
	}
	what := parkedDef{digest: e.Digest, description: e.Description}.changed(c.tool)
	if e.Description == "" && what != "" {
		what = "its definition changed"
	}
	text := c.name + " changed its definition since you allowed it always: asking again"
	if what != "" {
		text += " (" + what + ")"
	}
	s.publish(&Notice{Header: s.header(TypeNotice), Text: text})
}

// noteSavedProblems reports, once, a grants file that could not be used or
// entries of it that were skipped.
func (s *Session) noteSavedProblems() {
	if s.saved == nil {
		return
	}
	s.saved.mu.Lock()
	problem, ignored, path := s.saved.problem, s.saved.ignored, s.saved.path
	s.saved.problem, s.saved.ignored = "", 0
	s.saved.mu.Unlock()
	if problem != "" {
		s.publish(&Notice{Header: s.header(TypeNotice), Text: "cannot use the saved grants in " + path + ": " +
			problem + "; no saved grant applies (fix or delete the file)"})
	}
	if ignored > 0 {
		s.publish(&Notice{Header: s.header(TypeNotice), Text: fmt.Sprintf(
			"%d entries of %s were skipped: each needs a server, a tool and a digest", ignored, path)})
	}
}
