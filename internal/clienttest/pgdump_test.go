package clienttest

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// dumpChecks are what must be the same after a dump is loaded: every
// table's rows, the view's, and the value each sequence gives next.
// Calling nextval moves the sequences on, so each target is read once.
var dumpChecks = []string{
	"SELECT * FROM authors ORDER BY id",
	"SELECT * FROM books ORDER BY id",
	"SELECT * FROM a_cheap_books ORDER BY id",
	"SELECT * FROM events ORDER BY id",
	"SELECT nextval('authors_id_seq'), nextval('books_id_seq'), nextval('counter'), nextval('unused')",
	"SELECT nextval('events_id_seq'), nextval('events_seq_seq'), attname, attidentity FROM pg_attribute WHERE attrelid = 'events'::regclass AND attidentity <> '' ORDER BY attnum",
	"SELECT indexname, indexdef FROM pg_indexes WHERE tablename IN ('authors', 'books', 'events') ORDER BY indexname",
	"SELECT title, state FROM books ORDER BY state, title",
	"SELECT enumlabel FROM pg_enum WHERE enumtypid = 'book_state'::regtype ORDER BY enumsortorder",
	// A schema-only dump leaves a materialized view unpopulated, in
	// PostgreSQL too; the refresh shows its definition survived.
	"REFRESH MATERIALIZED VIEW author_books; SELECT * FROM author_books ORDER BY author",
	// Schemas and what is in them.
	"SELECT nspname, obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname IN ('shop', 'Audit Log', 'public') ORDER BY 1",
	"SELECT * FROM shop.items ORDER BY id",
	"SELECT * FROM shop.catalogue ORDER BY sku",
	`SELECT * FROM "Audit Log".entries`,
	`SELECT nextval('shop.items_id_seq'), nextval('shop.tickets'), nextval(pg_get_serial_sequence('"Audit Log".entries', 'n'))`,
	"SELECT schemaname, indexname, indexdef FROM pg_indexes WHERE schemaname = 'shop' ORDER BY indexname",
	"SELECT n.nspname, t.typname FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace WHERE t.typname = 'kind'",
	// Functions and procedures, and a view that calls one.
	"SELECT shop.price(1000), shop.price(1000, 0), array(SELECT shop.skus('paper')), next_code(41)",
	`SELECT * FROM "Audit Log".count_notes()`,
	"SELECT * FROM shop.prices ORDER BY sku",
	"SELECT p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid), p.prokind, p.provolatile, p.proisstrict FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname IN ('shop', 'Audit Log', 'public') AND p.proname IN ('price', 'skus', 'count_notes', 'next_code', 'restock') ORDER BY 1",
	"SELECT pg_get_functiondef('shop.restock'::regproc)",
	// citext and pg_trgm: the type compares without case after the load,
	// and the stored expressions that use them came back.
	"SELECT * FROM handles ORDER BY h",
	"SELECT h, alias FROM handles WHERE h = 'ANN' AND alias = 'annie'",
	"SELECT extname, extnamespace::regnamespace FROM pg_extension WHERE extname IN ('citext', 'pg_trgm') ORDER BY 1",
	"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'handles'::regclass AND contype = 'c'",
	"SELECT indexdef FROM pg_indexes WHERE indexname = 'handles_noted'",
	"SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'handles'::regclass AND attnum > 0 ORDER BY attnum",
	// The network types, their order, and what the operators make of
	// them after the load.
	"SELECT * FROM hosts ORDER BY addr",
	"SELECT addr, abbrev(net), host(addr), trunc(mac), eui::text FROM hosts WHERE addr <<= '10/8' OR mac > '08:00:2b:01:02:03' ORDER BY net DESC, addr",
	"SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'hosts'::regclass ORDER BY conname",
	"SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'hosts' ORDER BY indexname",
}

// TestPgDump dumps an epochdb database with PostgreSQL's pg_dump and loads
// the dump into a fresh epochdb, and with $EPOCHDB_PG_URL into a fresh
// PostgreSQL database too: in plain format, as --schema-only then
// --data-only, and in custom format through pg_restore. Every load runs
// with ON_ERROR_STOP (pg_restore with --exit-on-error), and afterwards
// the rows and the sequences' next values are the source's.
func TestPgDump(t *testing.T) {
	t.Parallel()
	if *againstPG {
		t.Skip("the source is epochdb; the PostgreSQL server is one of the targets")
	}
	pgDump, psql, pgRestore := lookPath(t, "pg_dump"), lookPath(t, "psql"), lookPath(t, "pg_restore")
	// pg_dump writes OWNER TO the source's role, which the targets must
	// have: epochdb runs as the PostgreSQL server's superuser.
	user := "postgres"
	pgURL := os.Getenv("EPOCHDB_PG_URL")
	if pgURL != "" {
		u, err := url.Parse(pgURL)
		if err != nil {
			t.Fatal(err)
		}
		user = u.User.Username()
	}
	src := startEpochDBAs(t, user)
	fixture, err := os.ReadFile(filepath.Join(clientsDir, "pgdump", "fixture.sql"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, src.url())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(fixture)); err != nil {
		t.Fatalf("fixture.sql: %v", err)
	}
	conn.Close(ctx)

	dir := t.TempDir()
	dump := func(t *testing.T, file string, args ...string) string {
		t.Helper()
		path := filepath.Join(dir, file)
		if out, code := runProgram(t, src, dir, pgDump, append(args, "-f", path)...); code != 0 {
			t.Fatalf("pg_dump %s exited %d:\n%s", strings.Join(args, " "), code, out)
		}
		return path
	}
	plain := dump(t, "plain.sql")
	schema := dump(t, "schema.sql", "--schema-only")
	data := dump(t, "data.sql", "--data-only")
	custom := dump(t, "custom.dump", "-Fc")
	if text, err := os.ReadFile(plain); err != nil || !strings.Contains(string(text), "ALTER SEQUENCE public.authors_id_seq OWNED BY public.authors.id;") {
		t.Errorf("the plain dump does not make authors_id_seq the column's (%v):\n%s", err, text)
	}
	want := readChecks(t, src, psql)

	load := func(t *testing.T, tg target, files ...string) {
		t.Helper()
		for _, f := range files {
			if out, code := runProgram(t, tg, dir, psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", f); code != 0 {
				t.Fatalf("loading %s: psql exited %d:\n%s", filepath.Base(f), code, out)
			}
		}
	}
	targets := map[string]func(t *testing.T) target{"epochdb": func(t *testing.T) target { return startEpochDBAs(t, user) }}
	if pgURL != "" {
		targets["postgres"] = startPGDatabase
	}
	for name, start := range targets {
		t.Run(name, func(t *testing.T) {
			t.Run("plain", func(t *testing.T) {
				tg := start(t)
				load(t, tg, plain)
				compareChecks(t, readChecks(t, tg, psql), want)
			})
			t.Run("schema_then_data", func(t *testing.T) {
				tg := start(t)
				load(t, tg, schema)
				if got := readChecks(t, tg, psql)[1]; got != "" {
					t.Errorf("after --schema-only, books holds\n%s", got)
				}
				load(t, tg, data)
				compareChecks(t, readChecks(t, tg, psql), want)
			})
			t.Run("pg_restore", func(t *testing.T) {
				tg := start(t)
				if out, code := runProgram(t, tg, dir, pgRestore, "--exit-on-error", "-d", tg.url(), custom); code != 0 {
					t.Fatalf("pg_restore exited %d:\n%s", code, out)
				}
				compareChecks(t, readChecks(t, tg, psql), want)
			})
		})
	}
}

// readChecks runs dumpChecks against tg with psql, unaligned.
func readChecks(t *testing.T, tg target, psql string) []string {
	t.Helper()
	var got []string
	for _, q := range dumpChecks {
		out, code := runProgram(t, tg, ".", psql, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", q)
		if code != 0 {
			t.Fatalf("%s: psql exited %d:\n%s", q, code, out)
		}
		got = append(got, out)
	}
	return got
}

func compareChecks(t *testing.T, got, want []string) {
	t.Helper()
	for i, q := range dumpChecks {
		if got[i] != want[i] {
			t.Errorf("%s after loading the dump:\n%s\nwant (the source's):\n%s", q, got[i], want[i])
		}
	}
}
