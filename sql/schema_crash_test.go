package sql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// Schemas and their objects survive a crash exactly as committed: those
// made, renamed and dropped by committed transactions are there as they
// left them, with their rows, and a schema made in a transaction that had
// not committed when the file system crashed (losing all unsynced data,
// or keeping a random share) is not.
func TestSchemasSurviveCrash(t *testing.T) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, 3))
			fs := vfs.NewMem()
			_, e := openEngineOn(t, fs)
			s, _ := e.NewSession(SessionParams{})
			for _, q := range []string{
				`CREATE SCHEMA app`,
				`CREATE TABLE app.t (id serial PRIMARY KEY, v text)`,
				`CREATE TYPE app.mood AS ENUM ('a', 'b')`,
				`CREATE VIEW app.tv AS SELECT v FROM app.t`,
				`INSERT INTO app.t (v) VALUES ('one'), ('two')`,
				`CREATE SCHEMA old CREATE TABLE x (a int)`,
				`ALTER SCHEMA old RENAME TO renamed`,
				`CREATE SCHEMA gone CREATE TABLE y (a int)`,
				`DROP SCHEMA gone CASCADE`,
				`CREATE TABLE t (id int)`, // public's
			} {
				if _, err := run(ctx, s, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			// Uncommitted when the crash comes: its schema must not exist.
			pending, _ := e.NewSession(SessionParams{})
			for _, q := range []string{`BEGIN`, `CREATE SCHEMA pending`, `CREATE TABLE pending.p (a int)`, `DROP SCHEMA app CASCADE`} {
				if _, err := run(ctx, pending, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
			store2, e2 := openEngineOn(t, crashed)
			defer store2.Close()
			s2, _ := e2.NewSession(SessionParams{})
			rows, err := run(ctx, s2, `SELECT string_agg(nspname, ',' ORDER BY nspname) FROM pg_namespace WHERE nspname NOT LIKE 'pg_%' AND nspname <> 'information_schema'`)
			if err != nil {
				t.Fatal(err)
			}
			if got := rows[0][0]; got != "app,public,renamed" {
				t.Errorf("schemas after the crash: %v, want app,public,renamed", got)
			}
			for q, want := range map[string]string{
				`SELECT string_agg(v, ',' ORDER BY v) FROM app.tv`:                "one,two",
				`SELECT 'b'::app.mood::text`:                                      "b",
				`SELECT count(*)::text FROM renamed.x`:                            "0",
				`SELECT count(*)::text FROM t`:                                    "0",
				`SELECT nextval(pg_get_serial_sequence('app.t', 'id')) > 2 AS ok`: "true",
				`SELECT (to_regclass('pending.p') IS NULL)::text`:                 "true",
			} {
				rows, err := run(ctx, s2, q)
				if err != nil {
					t.Errorf("%s: %v", q, err)
					continue
				}
				if got := fmt.Sprint(rows[0][0]); got != want {
					t.Errorf("%s: %s, want %s", q, got, want)
				}
			}
		})
	}
}
