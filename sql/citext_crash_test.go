package sql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// A unique citext index keeps a value as its lower-cased key, so after a
// crash (losing all unsynced data, or keeping a random share) it still
// holds 'Alpha' against 'ALPHA', whether the entry was in the WAL or an
// sstable, and a committed row keeps the case it was written in; an
// insert that had not committed left no key behind.
func TestCitextUniqueSurvivesCrash(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, 5))
			fs := vfs.NewMem()
			store, e := openEngineOn(t, fs)
			s, _ := e.NewSession(SessionParams{})
			for _, q := range []string{
				`CREATE EXTENSION citext`,
				`CREATE TABLE users (id int PRIMARY KEY, email citext UNIQUE, nick citext)`,
				`CREATE UNIQUE INDEX users_nick ON users (nick)`,
				`INSERT INTO users VALUES (1, 'Ann@Example.com', 'Ann')`,
			} {
				if _, err := run(ctx, s, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			if seed%2 == 0 {
				if err := store.Flush(); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := run(ctx, s, `INSERT INTO users VALUES (2, 'bob@example.com', 'Bob')`); err != nil {
				t.Fatal(err)
			}
			pending, _ := e.NewSession(SessionParams{})
			for _, q := range []string{`BEGIN`, `INSERT INTO users VALUES (3, 'Cy@example.com', 'Cy')`} {
				if _, err := run(ctx, pending, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
			store2, e2 := openEngineOn(t, crashed)
			defer store2.Close()
			s2, _ := e2.NewSession(SessionParams{})
			for _, q := range []string{
				`INSERT INTO users VALUES (4, 'ANN@EXAMPLE.COM', 'x')`,
				`INSERT INTO users VALUES (5, 'x@y', 'BOB')`,
				`UPDATE users SET nick = 'ann' WHERE id = 2`,
			} {
				if _, err := run(ctx, s2, q); pgerr.Code(err) != pgerr.UniqueViolation {
					t.Errorf("%s after the crash: %v, want a unique violation", q, err)
				}
			}
			if _, err := run(ctx, s2, `INSERT INTO users VALUES (3, 'CY@EXAMPLE.COM', 'CY')`); err != nil {
				t.Errorf("the uncommitted row's keys outlived the crash: %v", err)
			}
			rows, err := run(ctx, s2, `SELECT string_agg(email || '/' || nick, ',' ORDER BY id) FROM users WHERE email = 'ann@example.com' OR nick IN ('bob', 'cy')`)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := fmt.Sprint(rows[0][0]), "Ann@Example.com/Ann,bob@example.com/Bob,CY@EXAMPLE.COM/CY"; got != want {
				t.Errorf("rows after the crash: %s, want %s", got, want)
			}
		})
	}
}
