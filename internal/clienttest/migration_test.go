package clienttest

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMigration runs a realistic application migration (schemas,
// extensions, enums, SQL and PL/pgSQL functions, triggers, a DO block,
// advisory locks, DROP SCHEMA ... CASCADE) through psql with ON_ERROR_STOP
// on epochdb and, with $EPOCHDB_PG_URL, on PostgreSQL, and requires the
// same output. Then a schema-only dump of each restores into a fresh
// database of the other (of epochdb again without PostgreSQL), where an
// application's first statements give the same answers as on a fresh
// migration.
func TestMigration(t *testing.T) {
	t.Parallel()
	if *againstPG {
		t.Skip("the migration runs on both servers in every mode")
	}
	psql, pgDump := lookPath(t, "psql"), lookPath(t, "pg_dump")
	dir := t.TempDir()
	migration, err := filepath.Abs(filepath.Join(clientsDir, "migration", "migration.sql"))
	if err != nil {
		t.Fatal(err)
	}
	smoke, err := filepath.Abs(filepath.Join(clientsDir, "migration", "smoke.sql"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, tg target, file string) string {
		t.Helper()
		out, code := runProgram(t, tg, dir, psql, "-X", "-v", "ON_ERROR_STOP=1", "-f", file)
		if code != 0 {
			t.Fatalf("%s: psql exited %d:\n%s", filepath.Base(file), code, out)
		}
		return out
	}
	dump := func(t *testing.T, tg target, name string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if out, code := runProgram(t, tg, dir, pgDump, "--schema-only", "--no-owner", "-f", path); code != 0 {
			t.Fatalf("pg_dump exited %d:\n%s", code, out)
		}
		return path
	}
	same := func(t *testing.T, what, got, want string) {
		t.Helper()
		if got != want {
			t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", what, got, want)
		}
	}

	src := startEpochDB(t)
	migrated := run(t, src, migration)
	smoked := run(t, src, smoke)
	fromEpochDB := dump(t, src, "epochdb.sql")
	// A schema-only dump holds no rows: what the application sees in a
	// restored database is what it sees in epochdb restored from epochdb.
	restored := startEpochDB(t)
	run(t, restored, fromEpochDB)
	fresh := run(t, restored, smoke)
	if fresh == smoked {
		t.Errorf("the restored database answers as the migrated one, rows and all:\n%s", fresh)
	}

	if os.Getenv("EPOCHDB_PG_URL") == "" {
		return
	}
	var fromPG string
	t.Run("postgres", func(t *testing.T) {
		pg := startPGDatabase(t)
		same(t, "the migration's output on PostgreSQL", run(t, pg, migration), migrated)
		same(t, "the application's answers on PostgreSQL", run(t, pg, smoke), smoked)
		fromPG = dump(t, pg, "postgres.sql")
	})
	t.Run("epochdb_from_postgres", func(t *testing.T) {
		tg := startEpochDB(t)
		run(t, tg, fromPG)
		same(t, "epochdb restored from PostgreSQL's dump", run(t, tg, smoke), fresh)
	})
	t.Run("postgres_from_epochdb", func(t *testing.T) {
		tg := startPGDatabase(t)
		run(t, tg, fromEpochDB)
		same(t, "PostgreSQL restored from epochdb's dump", run(t, tg, smoke), fresh)
	})
}
