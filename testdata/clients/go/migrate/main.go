// The golang-migrate program, with its pgx/v5 driver: the migrations in
// migrations/ up from two instances at once (its advisory lock lets one
// run them), a failing migration that leaves the database dirty until
// Force, steps down and up, and queries of what the migrations made. See
// internal/clienttest/orm_py_go_test.go.
package main

import (
	"embed"
	"errors"
	"io/fs"
	"sync"

	"github.com/epochdb/epochdb/testdata/clients/go/internal/check"
	"github.com/golang-migrate/migrate/v4"
	"github.com/golang-migrate/migrate/v4/database"
	_ "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

//go:embed migrations/*.sql
var migrations embed.FS

// withBroken is migrations/ and a fourth migration that fails on its
// second statement, a duplicate email.
func withBroken() fs.FS {
	return check.WithFiles(migrations, "migrations", map[string]string{
		"4_duplicate.up.sql":   "INSERT INTO accounts (email) VALUES ('eve@example.com');\nINSERT INTO accounts (email) VALUES ('ann@example.com');\n",
		"4_duplicate.down.sql": "DELETE FROM accounts WHERE email = 'eve@example.com';\n",
	})
}

func newMigrate(t *check.T, fsys fs.FS) *migrate.Migrate {
	src, err := iofs.New(fsys, "migrations")
	t.NoErr(err, "iofs.New")
	m, err := migrate.NewWithSourceInstance("iofs", src, check.URL("pgx5"))
	t.NoErr(err, "migrate.NewWithSourceInstance")
	return m
}

func version(t *check.T, m *migrate.Migrate) (uint, bool) {
	v, dirty, err := m.Version()
	t.NoErr(err, "Version")
	return v, dirty
}

func main() {
	db := check.OpenDB()
	defer db.Close()
	var m *migrate.Migrate

	check.Step("Up from two instances at once", func(t *check.T) {
		ms := []*migrate.Migrate{newMigrate(t, migrations), newMigrate(t, migrations)}
		errs := make([]error, len(ms))
		var wg sync.WaitGroup
		for i := range ms {
			wg.Go(func() { errs[i] = ms[i].Up() })
		}
		wg.Wait()
		ran := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ran++
			case !errors.Is(err, migrate.ErrNoChange):
				t.Fatalf("Up: %v", err)
			}
		}
		t.Eq(ran, 1, "instances that ran the migrations (the other found no change)")
		ms[1].Close()
		m = ms[0]
		v, dirty := version(t, m)
		t.Eq([]any{v, dirty}, []any{uint(3), false}, "version")
		var rows []string
		r, err := db.Query("SELECT version::text || ' ' || dirty::text FROM schema_migrations")
		t.NoErr(err, "schema_migrations")
		for r.Next() {
			var s string
			t.NoErr(r.Scan(&s), "Scan")
			rows = append(rows, s)
		}
		t.Eq(rows, []string{"3 false"}, "schema_migrations")
	})

	check.Step("what the migrations made", func(t *check.T) {
		t.Eq(t.Texts(db, "SELECT email || ' ' || balance FROM accounts ORDER BY email"),
			[]string{"ann@example.com 74.75", "ben@example.com 34.50", "cat@example.com 50.75", "dan@example.com 0.00"},
			"balances moved by the trigger")
		t.Eq(t.Texts(db, `SELECT f.email || ' > ' || t.email || ' ' || x.amount FROM transfers x
			JOIN accounts f ON f.id = x.from_id JOIN accounts t ON t.id = x.to_id
			WHERE x.note IS NOT NULL AND x.amount BETWEEN 10 AND 40 ORDER BY x.amount DESC`),
			[]string{"ann@example.com > ben@example.com 30.00", "dan@example.com > ann@example.com 10.00"}, "joined transfers")
		t.Eq(t.Texts(db, "SELECT coalesce(note, '-') FROM transfers ORDER BY amount LIMIT 2 OFFSET 1"),
			[]string{"refund", "rent"}, "a page of transfers")
	})

	check.Step("rollback and integrity errors", func(t *check.T) {
		tx, err := db.Begin()
		t.NoErr(err, "Begin")
		_, err = tx.Exec("INSERT INTO transfers (from_id, to_id, amount) SELECT f.id, t.id, 1000 FROM accounts f, accounts t WHERE f.email = 'ann@example.com' AND t.email = 'ben@example.com'")
		t.Eq(check.SQLState(err), "23514", "overdrawing transfer breaks balance >= 0")
		t.NoErr(tx.Rollback(), "Rollback")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM transfers"), []string{"4"}, "transfers after rollback")
		_, err = db.Exec("INSERT INTO accounts (email) VALUES ('cat@example.com')")
		t.Eq(check.SQLState(err), "23505", "duplicate email")
	})

	check.Step("a failing migration leaves the database dirty", func(t *check.T) {
		broken := newMigrate(t, withBroken())
		defer broken.Close()
		err := broken.Up()
		var dbErr database.Error
		if !errors.As(err, &dbErr) {
			t.Fatalf("Up: %v, want a database.Error", err)
		}
		t.Eq(check.SQLState(dbErr.OrigErr), "23505", "the migration's error")
		v, dirty := version(t, broken)
		t.Eq([]any{v, dirty}, []any{uint(4), true}, "version after the failure")
		// The file ran as one simple query: its first INSERT went with it.
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM accounts WHERE email = 'eve@example.com'"), []string{"0"}, "eve")
		var dirtyErr migrate.ErrDirty
		if err := broken.Up(); !errors.As(err, &dirtyErr) || dirtyErr.Version != 4 {
			t.Fatalf("Up of a dirty database: %v, want ErrDirty{4}", err)
		}
		t.NoErr(broken.Force(3), "Force(3)")
		v, dirty = version(t, broken)
		t.Eq([]any{v, dirty}, []any{uint(3), false}, "version after Force")
	})

	check.Step("Steps down and up", func(t *check.T) {
		t.NoErr(m.Steps(-1), "Steps(-1)")
		v, _ := version(t, m)
		t.Eq(v, uint(2), "version")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM accounts"), []string{"0"}, "accounts after undoing the seed")
		t.NoErr(m.Steps(-1), "Steps(-1)")
		t.Eq(t.Texts(db, "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1"),
			[]string{"accounts", "schema_migrations"}, "tables at version 1")
		t.NoErr(m.Migrate(3), "Migrate(3)")
		t.Eq(t.Texts(db, "SELECT sum(balance)::text FROM accounts"), []string{"160.00"}, "money after migrating up again")
	})

	check.Step("Down", func(t *check.T) {
		t.NoErr(m.Down(), "Down")
		if _, _, err := m.Version(); !errors.Is(err, migrate.ErrNilVersion) {
			t.Fatalf("Version after Down: %v, want ErrNilVersion", err)
		}
		t.Eq(t.Texts(db, "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'"),
			[]string{"schema_migrations"}, "tables at no version")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM pg_proc WHERE proname = 'apply_transfer'"), []string{"0"}, "function dropped")
		t.NoErr(m.Up(), "Up again")
		v, dirty := version(t, m)
		t.Eq([]any{v, dirty}, []any{uint(3), false}, "version")
		m.Close()
	})
	check.Finish()
}
