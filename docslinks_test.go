package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// userPages are the docs a person using latch reads; developerPages are
// for those who work on latch, linked only from where a developer reads
// (the README's "The two commands" and the manual's last entry).
var (
	userPages = []string{"README.md", "docs/USING.md", "docs/CONFIG.md", "docs/PERMISSIONS.md", "docs/SERVERS.md",
		"docs/LOGIN.md", "docs/GATEWAY.md", "docs/MODELS.md", "docs/SESSIONS.md", "docs/SECURITY.md"}
	developerPages = map[string]bool{"docs/OLLAMA.md": true, "docs/DEVELOPING.md": true, "docs/ARCHITECTURE.md": true}
)

// mdLink is a markdown link's target: ](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every link of the user docs goes to a page that exists (and to a
// heading it has), and none sends a person reading about using latch to a
// page for its developers: the README's /think, for one, went to the
// page on what the fake Ollama imitates.
func TestUserDocsLinkUserPagesThatExist(t *testing.T) {
	for _, page := range userPages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		section := ""
		for n, line := range strings.Split(string(b), "\n") {
			if h, ok := strings.CutPrefix(line, "## "); ok {
				section = h
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.ToSlash(filepath.Join(filepath.Dir(page), file))
				}
				where := page + ":" + strconv.Itoa(n+1)
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s: %s does not exist", where, target)
					continue
				}
				if anchor != "" && !hasHeading(t, path, anchor) {
					t.Errorf("%s: %s has no heading #%s", where, path, anchor)
				}
				forDevelopers := page == "README.md" && (section == "The two commands" ||
					section == "The manual" && path != "docs/OLLAMA.md")
				if developerPages[path] && !forDevelopers {
					t.Errorf("%s: a user reading %q is sent to %s, a page for latch's developers", where, section, path)
				}
			}
		}
	}
}

// hasHeading reports whether the markdown file has a heading whose
// GitHub anchor is anchor.
func hasHeading(t *testing.T, path, anchor string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") && slug(h) == anchor {
			return true
		}
	}
	return false
}

// slug is GitHub's anchor of a heading: lower case, spaces to hyphens,
// punctuation dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
