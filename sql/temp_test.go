package sql

import (
	"context"
	"testing"

	"github.com/epochdb/epochdb/internal/vfs"
	"github.com/epochdb/epochdb/sql/pgerr"
)

// A session's temporary tables are its own: another session's path does
// not find them, naming them in their schema is refused, and they go
// with their session, with their rows.
func TestTempTablesArePrivate(t *testing.T) {
	ctx := context.Background()
	_, e := openEngineOn(t, vfs.NewMem())
	a, _ := e.NewSession(SessionParams{})
	b, _ := e.NewSession(SessionParams{})
	for _, q := range []string{
		`CREATE TABLE shared (a int)`,
		`INSERT INTO shared VALUES (1)`,
		`CREATE TEMP TABLE shared (a int, mine text)`,
		`INSERT INTO shared VALUES (2, 'a')`,
		`CREATE TEMP TABLE only_a (a int)`,
	} {
		if _, err := run(ctx, a, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows, err := run(ctx, a, `SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()`)
	if err != nil || len(rows) != 1 {
		t.Fatalf("a's temporary schema: %v, %v", rows, err)
	}
	schemaA := rows[0][0].(string)

	if rows, err := run(ctx, b, `SELECT * FROM shared`); err != nil || len(rows) != 1 || len(rows[0]) != 1 {
		t.Errorf("b reads shared: %v, %v; want the permanent table's one row", rows, err)
	}
	if _, err := run(ctx, b, `SELECT * FROM only_a`); pgerr.Code(err) != pgerr.UndefinedTable {
		t.Errorf("b reads a's temporary table by its name: %v, want 42P01", err)
	}
	for _, q := range []string{
		`SELECT * FROM ` + schemaA + `.only_a`,
		`INSERT INTO ` + schemaA + `.only_a VALUES (1)`,
	} {
		if _, err := run(ctx, b, q); pgerr.Code(err) != pgerr.FeatureNotSupported {
			t.Errorf("%s in another session: %v, want 0A000 (cannot access temporary tables of other sessions)", q, err)
		}
	}
	if _, err := run(ctx, b, `CREATE TABLE `+schemaA+`.intruder (a int)`); pgerr.Code(err) != pgerr.InvalidTableDefinition {
		t.Errorf("b creates a table in a's temporary schema: %v, want 42P16", err)
	}
	// b's own temporary schema is another one.
	if _, err := run(ctx, b, `CREATE TEMP TABLE only_a (b int)`); err != nil {
		t.Fatal(err)
	}
	if rows, _ := run(ctx, b, `SELECT nspname FROM pg_namespace WHERE oid = pg_my_temp_schema()`); len(rows) != 1 || rows[0][0] == schemaA {
		t.Errorf("b's temporary schema %v, a's %s: want two", rows, schemaA)
	}
	if rows, _ := run(ctx, b, `SELECT pg_is_other_temp_schema('`+schemaA+`'::regnamespace)`); len(rows) != 1 || rows[0][0] != true {
		t.Errorf("pg_is_other_temp_schema(a's) in b: %v, want true", rows)
	}

	a.Close()
	rows, err = run(ctx, b, `SELECT count(*) FROM pg_namespace WHERE nspname = '`+schemaA+`'`)
	if err != nil || rows[0][0] != int64(0) {
		t.Errorf("a's temporary schema after a closed: %v, %v; want gone", rows, err)
	}
	if rows, _ := run(ctx, b, `SELECT count(*) FROM pg_class WHERE relname = 'only_a'`); rows[0][0] != int64(1) {
		t.Errorf("tables called only_a after a closed: %v, want b's alone", rows)
	}
	if rows, _ := run(ctx, b, `SELECT a FROM shared`); len(rows) != 1 || rows[0][0] != int64(1) {
		t.Errorf("the permanent table after a closed: %v", rows)
	}
}

// A session that takes the slot of one whose temporary schema was left
// behind (its cleanup failed, say) starts with an empty schema, not with
// the other's tables.
func TestTempSlotReuseStartsEmpty(t *testing.T) {
	ctx := context.Background()
	_, e := openEngineOn(t, vfs.NewMem())
	a, _ := e.NewSession(SessionParams{})
	if _, err := run(ctx, a, `CREATE TEMP TABLE left_behind (a int); INSERT INTO left_behind VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	// Give up the slot as a session would whose cleanup failed.
	e.tempSlots.give(a.tempSlot)
	a.tempMade = false
	b, _ := e.NewSession(SessionParams{})
	if b.tempSlot != a.tempSlot {
		t.Fatalf("b took slot %d, a held %d", b.tempSlot, a.tempSlot)
	}
	if _, err := run(ctx, b, `SELECT * FROM left_behind`); pgerr.Code(err) != pgerr.UndefinedTable {
		t.Errorf("b, before making a temporary table, reads the old one: %v", err)
	}
	if _, err := run(ctx, b, `CREATE TEMP TABLE fresh (a int)`); err != nil {
		t.Fatal(err)
	}
	rows, err := run(ctx, b, `SELECT string_agg(relname, ',') FROM pg_class WHERE relnamespace = pg_my_temp_schema() AND relkind = 'r'`)
	if err != nil || rows[0][0] != "fresh" {
		t.Errorf("b's temporary tables: %v, %v; want fresh alone", rows, err)
	}
}

// Temporary tables do not outlive a crash: whatever a session's schema
// held, committed and synced or not, is gone when the engine starts
// again, and the permanent tables are as committed.
func TestTempTablesGoneAfterCrash(t *testing.T) {
	ctx := context.Background()
	fs := vfs.NewMem()
	_, e := openEngineOn(t, fs)
	s, _ := e.NewSession(SessionParams{})
	for _, q := range []string{
		`CREATE TABLE perm (a int)`,
		`INSERT INTO perm VALUES (1)`,
		`CREATE TEMP TABLE tmp (a int PRIMARY KEY)`,
		`INSERT INTO tmp SELECT g FROM generate_series(1, 100) g`,
		`CREATE TEMP VIEW tv AS SELECT * FROM tmp`,
	} {
		if _, err := run(ctx, s, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	crashed := fs.CrashClone(vfs.CrashOptions{})
	store2, e2 := openEngineOn(t, crashed)
	defer store2.Close()
	s2, _ := e2.NewSession(SessionParams{})
	for q, want := range map[string]int64{
		`SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg\_temp\_%'`:       0,
		`SELECT count(*) FROM pg_class WHERE relname IN ('tmp', 'tv', 'tmp_pkey')`: 0,
		`SELECT count(*) FROM perm`: 1,
	} {
		rows, err := run(ctx, s2, q)
		if err != nil || len(rows) != 1 || rows[0][0] != want {
			t.Errorf("after the crash, %s: %v, %v; want %d", q, rows, err, want)
		}
	}
	// The session that takes the slot starts afresh.
	if _, err := run(ctx, s2, `CREATE TEMP TABLE tmp (b text)`); err != nil {
		t.Errorf("a new temporary table of the same name: %v", err)
	}
}
