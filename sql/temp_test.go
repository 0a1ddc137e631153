package sql

import (
	"context"
	"testing"

	"github.com/epochdb/epochdb/sql/pgerr"
)

// tempSchemas counts the sessions' temporary schemas the catalog holds.
func tempSchemas(t *testing.T, s *Session) int64 {
	t.Helper()
	return mustRun(t, s, `SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg\_temp\_%'`)[0][0].(int64)
}

// A session's temporary objects are its own, and go when it ends: another
// session neither sees them nor collides with them, and a temporary
// schema whose making rolled back is not there.
func TestTempObjectsEndWithSession(t *testing.T) {
	ctx := context.Background()
	e, s1 := newTestSession(t)
	s2, err := e.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	mustRun(t, s1, `CREATE TEMP TABLE tt (id serial PRIMARY KEY, v text)`)
	mustRun(t, s1, `INSERT INTO tt (v) VALUES ('one')`)
	mustRun(t, s1, `CREATE FUNCTION pg_temp.f() RETURNS text LANGUAGE sql AS $$ SELECT 'temp f' $$`)
	if _, err := run(ctx, s2, `SELECT * FROM tt`); pgerr.Code(err) != pgerr.UndefinedTable {
		t.Errorf("another session reads the temporary table: %v, want 42P01", err)
	}
	if _, err := run(ctx, s2, `SELECT pg_temp.f()`); pgerr.Code(err) != pgerr.InvalidSchemaName {
		t.Errorf("another session calls the temporary function: %v, want 3F000", err)
	}
	mustRun(t, s2, `CREATE TEMP TABLE tt (n int)`)
	mustRun(t, s2, `INSERT INTO tt VALUES (1), (2)`)
	if got := mustRun(t, s1, `SELECT v, pg_temp.f() FROM tt`); len(got) != 1 || got[0][0] != "one" || got[0][1] != "temp f" {
		t.Errorf("the first session's own rows: %v", got)
	}
	if got := mustRun(t, s2, `SELECT count(*) FROM tt`); got[0][0] != int64(2) {
		t.Errorf("the second session's own rows: %v", got)
	}
	if n := tempSchemas(t, s2); n != 2 {
		t.Fatalf("%d temporary schemas, want 2", n)
	}
	s1.Close()
	if n := tempSchemas(t, s2); n != 1 {
		t.Errorf("after the first session ends: %d temporary schemas, want 1", n)
	}
	if got := mustRun(t, s2, `SELECT count(*) FROM pg_class WHERE relname IN ('tt_id_seq', 'tt_pkey')`); got[0][0] != int64(0) {
		t.Errorf("the ended session's sequence and index are left: %v", got)
	}
	if got := mustRun(t, s2, `SELECT count(*) FROM pg_proc WHERE proname = 'f'`); got[0][0] != int64(0) {
		t.Errorf("the ended session's function is left: %v", got)
	}

	s3, err := e.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, s3, `BEGIN; CREATE TEMP TABLE gone (a int); ROLLBACK`)
	if n := tempSchemas(t, s3); n != 1 {
		t.Errorf("after a rolled-back CREATE TEMP TABLE: %d temporary schemas, want 1", n)
	}
	mustRun(t, s3, `CREATE TEMP TABLE kept (a int)`)
	mustRun(t, s3, `DISCARD TEMP`)
	if _, err := run(ctx, s3, `SELECT * FROM kept`); pgerr.Code(err) != pgerr.UndefinedTable {
		t.Errorf("after DISCARD TEMP: %v, want 42P01", err)
	}
	s3.Close()
	s2.Close()
	s4, err := e.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer s4.Close()
	if n := tempSchemas(t, s4); n != 0 {
		t.Errorf("after every session ended: %d temporary schemas, want 0", n)
	}
}

// A server that stops with sessions open leaves their temporary schemas
// behind; the session of a later server that is given one's name empties
// it before making its own temporary objects.
func TestTempSchemaLeftover(t *testing.T) {
	e1, s1 := newTestSession(t)
	mustRun(t, s1, `CREATE TEMP TABLE old (a int)`)
	mustRun(t, s1, `INSERT INTO old VALUES (1)`)
	// A second engine on the same store is a server started after the
	// first stopped without ending its session.
	e2, err := NewEngine(e1.store, EngineOptions{TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := e2.NewSession(SessionParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if s2.temp.name != s1.temp.name {
		t.Fatalf("the later session's schema is %s, the leftover %s: the test needs them to meet", s2.temp.name, s1.temp.name)
	}
	if n := tempSchemas(t, s2); n != 1 {
		t.Fatalf("%d temporary schemas, want the leftover", n)
	}
	if _, err := run(context.Background(), s2, `SELECT * FROM old`); pgerr.Code(err) != pgerr.UndefinedTable {
		t.Errorf("a later session reads a leftover table: %v, want 42P01", err)
	}
	mustRun(t, s2, `CREATE TEMP TABLE fresh (b int)`)
	if got := mustRun(t, s2, `SELECT relname FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relkind = 'r' ORDER BY 1`); len(got) != 1 || got[0][0] != "fresh" {
		t.Errorf("the temporary schema holds %v, want only fresh", got)
	}
}
