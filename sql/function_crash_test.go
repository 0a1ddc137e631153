package sql

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
)

// Functions and procedures survive a crash exactly as committed: made,
// replaced, renamed and dropped by committed transactions, they are as
// those left them; one made in a transaction that had not committed when
// the file system crashed (losing all unsynced data, or keeping a random
// share) is not there, nor are the writes of a function called in it.
// A function's writes commit with the statement that called it, or not
// at all.
func TestFunctionsSurviveCrash(t *testing.T) {
	crashScenario(t, 5, []string{
		`CREATE SCHEMA app`,
		`CREATE TABLE app.log (id int PRIMARY KEY, note text)`,
		`CREATE FUNCTION app.add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b'`,
		`CREATE OR REPLACE FUNCTION app.add(a int, b int DEFAULT 1) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT a + b * 10'`,
		`CREATE FUNCTION app.note(i int, n text) RETURNS bigint LANGUAGE sql AS $$ INSERT INTO app.log VALUES (i, n); SELECT count(*) FROM app.log $$`,
		`CREATE PROCEDURE app.put(i int) LANGUAGE sql AS $$ INSERT INTO app.log VALUES (i, 'proc') $$`,
		`CREATE FUNCTION old_name() RETURNS text LANGUAGE sql AS $$ SELECT 'renamed' $$`,
		`ALTER FUNCTION old_name() RENAME TO new_name`,
		`CREATE FUNCTION gone() RETURNS int RETURN 1`,
		`DROP FUNCTION gone()`,
		`SELECT app.note(1, 'one')`,
		`CALL app.put(2)`,
	}, []string{`BEGIN`, `CREATE FUNCTION pending() RETURNS int RETURN 7`, `SELECT app.note(3, 'pending')`, `DROP FUNCTION app.add(int, int)`}, []crashCheck{
		{`SELECT app.add(1)::text`, "11"},
		{`SELECT new_name()`, "renamed"},
		{`SELECT string_agg(id || ':' || note, ',' ORDER BY id) FROM app.log`, "1:one,2:proc"},
		{`SELECT count(*)::text FROM pg_proc WHERE proname IN ('gone', 'pending', 'old_name')`, "0"},
		{`SELECT app.note(4, 'after')::text`, "3"},
	})
}

// crashCheck is a query to run after the crash and its one value.
type crashCheck struct{ q, want string }

// crashScenario runs setup in one session, leaves pending open in
// another (pending starts with BEGIN), crashes the file system (for 8
// seeds of stream: losing all unsynced data, or keeping a random share),
// reopens, and runs the checks in order.
func crashScenario(t *testing.T, stream uint64, setup, pending []string, checks []crashCheck) {
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(seed, stream))
			fs := vfs.NewMem()
			_, e := openEngineOn(t, fs)
			s, _ := e.NewSession(SessionParams{})
			for _, q := range setup {
				if _, err := run(ctx, s, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			open, _ := e.NewSession(SessionParams{})
			for _, q := range pending {
				if _, err := run(ctx, open, q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			crashed := fs.CrashClone(vfs.CrashOptions{Rand: rng, KeepUnsynced: rng.IntN(2) == 0})
			store2, e2 := openEngineOn(t, crashed)
			defer store2.Close()
			s2, _ := e2.NewSession(SessionParams{})
			for _, c := range checks {
				rows, err := run(ctx, s2, c.q)
				if err != nil {
					t.Errorf("%s: %v", c.q, err)
					continue
				}
				if got := fmt.Sprint(rows[0][0]); got != c.want {
					t.Errorf("%s: %s, want %s", c.q, got, c.want)
				}
			}
		})
	}
}
