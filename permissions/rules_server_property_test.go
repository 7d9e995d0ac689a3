package permissions

import (
	"math/rand/v2"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// Pools of TestPropertyServerReadsNoDeniedFile: path pieces in several
// Unicode spellings and cases, separators (a look-alike among them), and
// the folders a server may run in.
var (
	srvPieces = []string{"src", "p", ".ssh", ".SSH", "Privé", "Prive\u0301", "PRIVÉ", "..", ".", "", "x", "id_rsa",
		"a\u200bb", ".ss\u200bh", "\u202e.ssh", "~", "~me", "\ufeff", "\uff0essh"}
	srvSeps   = []string{"/", "/", "//", `\`, "\uff0f", "\u2215"}
	srvStarts = []string{"", "~/", "/", "./", "../", "/home/me/", "~"}
	srvBases  = [][]string{nil, {"/home/me"}, {"/home/me/src/p"}, {"/"}, {"/home/me/src", "/tmp"}, {"/home/me/.ssh"},
		{"/home/me/Privé"}, {"/srv/w", "/home/me/src/p"}}
)

// srvNormaliser drops the invisibles of srvPieces and reads the slash
// look-alikes of srvSeps as '/'.
var srvNormaliser = strings.NewReplacer("\u200b", "", "\u202e", "", "\ufeff", "", "\uff0f", "/", "\u2215", "/")

// randomServerPath is a random path of srvPieces and srvSeps.
func randomServerPath(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString(srvStarts[rng.IntN(len(srvStarts))])
	for range rng.IntN(6) {
		b.WriteString(srvPieces[rng.IntN(len(srvPieces))])
		b.WriteString(srvSeps[rng.IntN(len(srvSeps))])
	}
	b.WriteString(srvPieces[rng.IntN(len(srvPieces))])
	return b.String()
}

// serverReads is every file a server could open for the value v with
// the folder base, written for this test and sharing no code with the
// gate: '\' a separator or not; the value as sent, or as a normalising
// server makes it (invisibles dropped, look-alike slashes as '/', NFKC);
// "~" expanded, a relative path resolved against base; compared in NFC,
// case-folded when fold.
func serverReads(v, base string, fold bool) []string {
	var out []string
	for _, bs := range []bool{false, true} {
		for _, normalise := range []bool{false, true} {
			s := v
			if normalise {
				s = srvNormaliser.Replace(s)
				s = norm.NFKC.String(s)
			}
			p := resolveAt(s, base, bs)
			p = norm.NFC.String(p)
			if fold {
				p = strings.ToLower(p)
			}
			out = append(out, p)
		}
	}
	return out
}

// TestPropertyServerReadsNoDeniedFile: for random paths (relative, "./",
// "..", "~", '\', duplicate slashes, NFC and NFD, upper and lower case,
// invisibles and look-alike slashes) and random bases, read as
// server-filesystem reads them (serverReads): no value the server would
// read inside a denied folder is let through, and an allow rule never
// allows a value the server could read outside its folder, nor one
// holding an invisible character. With no base known, a value that
// lands in the denied folder from any base outside it is denied, and no
// relative value is allowed.
func TestPropertyServerReadsNoDeniedFile(t *testing.T) {
	if testing.Short() {
		t.Skip("long (random rules against a real server's reads): make test-e2e runs it")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(30, 1))
	type gates struct{ deny, allow *Gate }
	var byFold [2]gates
	for i, pc := range []PathCase{PathCaseExact, PathCaseFold} {
		privé := "~/Privé/**"
		if i == 1 {
			privé = "~/Prive\u0301/**" // an NFD pattern
		}
		byFold[i] = gates{
			deny: NewGate(Policy{Mode: Auto, Home: testHome, PathCase: pc, Rules: []Rule{
				mustRule(t, "", "*", map[string]any{"*": "~/.ssh/**"}, "deny"),
				mustRule(t, "", "*", map[string]any{"path": privé}, "deny")}}),
			allow: NewGate(Policy{Mode: Ask, Home: testHome, PathCase: pc, Servers: []string{"fs"}, Rules: []Rule{
				mustRule(t, "", "fs__read_text_file", map[string]any{"path": "~/src/p/**"}, "allow")}}),
		}
	}
	deniedFolders := []string{"/home/me/.ssh", "/home/me/privé"}
	allowed, denials := 0, 0
	for i := range propertyCases {
		fold := rng.IntN(2) == 1
		g := byFold[0]
		if fold {
			g = byFold[1]
		}
		value := randomServerPath(rng)
		bases := srvBases[rng.IntN(len(srvBases))]
		call := withBases(fsRead(value), bases...)
		inDenied := func(p string) bool {
			for _, f := range deniedFolders {
				if !fold && f == "/home/me/privé" {
					f = "/home/me/Privé"
				}
				if inside(p, f) {
					return true
				}
			}
			return false
		}
		var reads []string
		for _, b := range bases {
			reads = append(reads, serverReads(value, b, fold)...)
		}
		isDenied := g.deny.Decide(call).Decision == Deny
		isAllowed := g.allow.Decide(call).Decision == Allow
		if isDenied {
			denials++
		}
		if isAllowed {
			allowed++
		}
		for _, p := range reads {
			if inDenied(p) && !isDenied {
				t.Fatalf("case %d: %q with bases %q (fold %v): the server reads %q, in a denied folder, and the gate lets it through",
					i, value, bases, fold, p)
			}
			if isAllowed && !inside(p, "/home/me/src/p") {
				t.Fatalf("case %d: %q with bases %q (fold %v): allowed, but the server may read %q", i, value, bases, fold, p)
			}
		}
		if isAllowed && (doubtfulForTest(value) || bases == nil && !strings.HasPrefix(resolve(value, false), "/")) {
			t.Fatalf("case %d: %q with bases %q: allowed", i, value, bases)
		}
		if bases != nil {
			continue
		}
		// No base known: from any base outside the denied folders.
		for _, b := range []string{"/home/me", "/home/me/src/p", "/", "/srv/w"} {
			for _, p := range serverReads(value, b, fold) {
				if inDenied(p) && !isDenied {
					t.Fatalf("case %d: %q with no base known (fold %v): from base %s the server reads %q, and the gate lets it through",
						i, value, fold, b, p)
				}
			}
		}
	}
	if allowed < propertyCases/100 || denials < propertyCases/100 {
		t.Errorf("%d of %d values allowed, %d denied: the property says little", allowed, propertyCases, denials)
	}
}

// doubtfulForTest reports whether v holds one of the invisible
// characters or look-alike slashes of srvPieces and srvSeps.
func doubtfulForTest(v string) bool {
	return strings.ContainsAny(v, "\u200b\u202e\ufeff\uff0f\u2215")
}
