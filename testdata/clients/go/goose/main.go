// The goose program, with its Provider: SQL migrations in migrations/
// (one with a PL/pgSQL function between StatementBegin and StatementEnd,
// one outside a transaction for CREATE INDEX CONCURRENTLY) and a Go
// migration, up from two providers at once (its session locker takes an
// advisory lock), a failing migration as a *goose.PartialError, down and
// up by version, and queries of what the migrations made. See
// internal/clienttest/orm_py_go_test.go.
package main

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"io/fs"
	"sync"

	"github.com/epochdb/epochdb/testdata/clients/go/internal/check"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed migrations/*.sql
var migrations embed.FS

// seed is migration 3, in Go: the users and posts the rest read.
var seed = goose.NewGoMigration(3,
	&goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		for _, h := range []string{"ada", "bob", "cyd"} {
			if _, err := tx.ExecContext(ctx, "INSERT INTO users (handle, karma) VALUES ($1, $2)", h, len(h)*int(h[0]-'a')); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO posts (author_id, title, score)
			SELECT u.id, p.title, p.score FROM (VALUES ('ada', 'Engines', 12), ('ada', 'Notes', 40), ('bob', 'Hello', 3), ('cyd', 'Maps', 7))
			AS p (handle, title, score) JOIN users u ON u.handle = p.handle`)
		return err
	}},
	&goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM users")
		return err
	}},
)

func newProvider(t *check.T, db *sql.DB, fsys fs.FS) *goose.Provider {
	// Waiting for the lock is retried every second.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 60))
	t.NoErr(err, "NewPostgresSessionLocker")
	sub, err := fs.Sub(fsys, "migrations")
	t.NoErr(err, "fs.Sub")
	p, err := goose.NewProvider(goose.DialectPostgres, db, sub, goose.WithSessionLocker(locker),
		goose.WithGoMigrations(seed), goose.WithDisableGlobalRegistry(true))
	t.NoErr(err, "NewProvider")
	return p
}

func main() {
	ctx := context.Background()
	db := check.OpenDB()
	defer db.Close()
	var p *goose.Provider

	check.Step("Status before any migration", func(t *check.T) {
		p = newProvider(t, db, migrations)
		st, err := p.Status(ctx)
		t.NoErr(err, "Status")
		var got []string
		for _, s := range st {
			got = append(got, string(s.Source.Type)+" "+string(s.State))
		}
		t.Eq(got, []string{"sql pending", "sql pending", "go pending", "sql pending"}, "status")
	})

	check.Step("Up from two providers at once", func(t *check.T) {
		other := newProvider(t, db, migrations)
		var results [2][]*goose.MigrationResult
		var errs [2]error
		var wg sync.WaitGroup
		for i, pr := range []*goose.Provider{p, other} {
			wg.Go(func() { results[i], errs[i] = pr.Up(ctx) })
		}
		wg.Wait()
		t.NoErr(errors.Join(errs[:]...), "Up")
		t.Eq([]int{len(results[0]) + len(results[1]), len(results[0]) * len(results[1])}, []int{4, 0},
			"migrations applied (all by one provider)")
		v, err := p.GetDBVersion(ctx)
		t.NoErr(err, "GetDBVersion")
		t.Eq(v, int64(4), "version")
		pending, err := p.HasPending(ctx)
		t.NoErr(err, "HasPending")
		t.Eq(pending, false, "pending")
		t.Eq(t.Texts(db, "SELECT string_agg(version_id::text, ',' ORDER BY id) FROM goose_db_version WHERE is_applied"),
			[]string{"0,1,2,3,4"}, "goose_db_version")
		t.Eq(t.Texts(db, `SELECT count(*)::text FROM pg_locks WHERE locktype = 'advisory'
			AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`), []string{"0"},
			"advisory locks left held")
	})

	check.Step("what the migrations made", func(t *check.T) {
		t.Eq(t.Texts(db, "SELECT u.handle || ':' || p.title FROM posts p JOIN users u ON u.id = p.author_id WHERE p.score > 5 ORDER BY p.score DESC"),
			[]string{"ada:Notes", "ada:Engines", "cyd:Maps"}, "joined posts")
		t.Eq(t.Texts(db, "SELECT handle FROM users ORDER BY karma DESC, handle LIMIT 2 OFFSET 1"), []string{"bob", "ada"}, "a page of users")
		_, err := db.Exec("UPDATE posts SET title = title || '!', score = score + 1 WHERE title IN ('Hello', 'Maps')")
		t.NoErr(err, "UPDATE")
		_, err = db.Exec("UPDATE posts SET score = 0 WHERE title = 'Notes'")
		t.NoErr(err, "UPDATE")
		t.Eq(t.Texts(db, "SELECT title || ' ' || edits || ' ' || score FROM posts ORDER BY title"),
			[]string{"Engines 0 12", "Hello! 1 4", "Maps! 1 8", "Notes 0 0"}, "edits counted by the trigger")
		t.Eq(t.Texts(db, "SELECT indexdef FROM pg_indexes WHERE indexname = 'posts_title'"),
			[]string{"CREATE INDEX posts_title ON public.posts USING btree (lower(title))"}, "the index made concurrently")
	})

	check.Step("rollback and a unique violation", func(t *check.T) {
		tx, err := db.Begin()
		t.NoErr(err, "Begin")
		_, err = tx.Exec("DELETE FROM users WHERE handle = 'ada'")
		t.NoErr(err, "DELETE")
		t.Eq(t.Texts(tx, "SELECT count(*)::text FROM posts"), []string{"2"}, "posts in the transaction (cascaded)")
		t.NoErr(tx.Rollback(), "Rollback")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM posts"), []string{"4"}, "posts after rollback")
		_, err = db.Exec("INSERT INTO users (handle) VALUES ('bob')")
		t.Eq(check.SQLState(err), "23505", "duplicate handle")
	})

	check.Step("a failing migration is a PartialError", func(t *check.T) {
		files := check.WithFiles(migrations, "migrations", map[string]string{"00005_duplicate.sql": "-- +goose Up\n" +
			"INSERT INTO users (handle) VALUES ('dee');\nINSERT INTO users (handle) VALUES ('ada');\n-- +goose Down\nSELECT 1;\n"})
		broken := newProvider(t, db, files)
		_, err := broken.Up(ctx)
		var partial *goose.PartialError
		if !errors.As(err, &partial) {
			t.Fatalf("Up: %v, want a *goose.PartialError", err)
		}
		t.Eq([]any{partial.Failed.Source.Version, len(partial.Applied), check.SQLState(err)}, []any{int64(5), 0, "23505"},
			"failed version, applied before it, SQLSTATE")
		v, err := broken.GetDBVersion(ctx)
		t.NoErr(err, "GetDBVersion")
		t.Eq(v, int64(4), "version after the failure")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM users WHERE handle = 'dee'"), []string{"0"},
			"the failed migration's first insert, rolled back with its transaction")
	})

	check.Step("down and up by version", func(t *check.T) {
		r, err := p.Down(ctx)
		t.NoErr(err, "Down")
		t.Eq(r.Source.Version, int64(4), "rolled back")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM pg_indexes WHERE indexname = 'posts_title'"), []string{"0"}, "index dropped")
		_, err = p.DownTo(ctx, 1)
		t.NoErr(err, "DownTo(1)")
		t.Eq(t.Texts(db, "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1"),
			[]string{"goose_db_version", "users"}, "tables at version 1")
		_, err = p.UpTo(ctx, 3)
		t.NoErr(err, "UpTo(3)")
		t.Eq(t.Texts(db, "SELECT count(*)::text FROM posts"), []string{"4"}, "posts seeded again")
		_, err = p.ApplyVersion(ctx, 4, true)
		t.NoErr(err, "ApplyVersion(4)")
		_, err = p.ApplyVersion(ctx, 4, true)
		t.Eq(errors.Is(err, goose.ErrAlreadyApplied), true, "ApplyVersion(4) again: "+check.ErrString(err))
		_, err = p.DownTo(ctx, 0)
		t.NoErr(err, "DownTo(0)")
		t.Eq(t.Texts(db, "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public'"),
			[]string{"goose_db_version"}, "tables at version 0")
		t.NoErr(p.Close(), "Close")
	})
	check.Finish()
}
