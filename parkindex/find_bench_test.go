package parkindex

import (
	"fmt"
	"testing"
)

// BenchmarkFind10000 is Find of one call among 10,000, by its approval
// id, with the schema's indexes (indexed) and without calls_approval_id
// (scan: schema 2, which read the whole table), in one run:
//
//	go test -run '^$' -bench Find10000 -benchtime 300x ./parkindex/
func BenchmarkFind10000(b *testing.B) {
	for _, name := range []string{"indexed", "scan"} {
		b.Run(name, func(b *testing.B) {
			x := ready(b, b.TempDir(), Options{})
			tx, err := x.db.Begin()
			if err != nil {
				b.Fatal(err)
			}
			for i := range 10000 {
				if _, err := tx.Exec(`INSERT INTO calls (session, approval_id, call_id, client, caller, caller_verified, tool, server,
					digest, description, arguments, parked, expires, mode, rule) VALUES ('s', ?, ?, 'c', '', 0, 't', 'srv', '', '', '{}', ?, 0, '', '')`,
					fmt.Sprintf("ap_%05d", i), fmt.Sprintf("gw_%05d", i), i); err != nil {
					b.Fatal(err)
				}
			}
			if err := tx.Commit(); err != nil {
				b.Fatal(err)
			}
			if name == "scan" {
				if _, err := x.db.Exec("DROP INDEX calls_approval_id"); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for range b.N {
				if got, err := x.Find("ap_05000"); err != nil || len(got) != 1 {
					b.Fatalf("Find: %d calls, %v", len(got), err)
				}
			}
		})
	}
}
