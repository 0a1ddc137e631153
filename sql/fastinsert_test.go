package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/epochdb/epochdb"
	"github.com/jackc/pgx/v5"
)

// TestFastInsertMatchesGeneralPath inserts every literal into every column
// type twice: once as the parser's fast path reads it, and once behind a
// comment, which sends the statement down the general path through TiDB.
// The two must agree on every error and on every stored value.
func TestFastInsertMatchesGeneralPath(t *testing.T) {
	colTypes := []string{"int2", "int4", "int8", "numeric", "numeric(6,2)", "float4", "float8",
		"text", "varchar(3)", "char(3)", "bool", "date", "timestamp", "timestamptz", "interval",
		"bytea", "uuid", "int4[]", "text[]"}
	literals := []string{"0", "-7", "32768", "2147483648", "-2147483649", "9223372036854775807",
		"1.5", "-0.25", "12345.678", "0.005", "'x'", "'12'", "' 1 '", "'true'", "'2024-01-02'",
		"'2024-01-02 03:04:05+02'", "'1 day'", "'{1,2}'", "'\\x41'", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
		`'{"a": 1}'`, "''", "'it''s'", "NULL", "TRUE", "false", "DEFAULT", "-0", "-0.0", "-0.000",
		"'a\x00b'"}
	var setup []string
	for i, ct := range colTypes {
		for _, path := range []string{"fast", "general"} {
			setup = append(setup, fmt.Sprintf("CREATE TABLE %s_%d (id int, v %s DEFAULT NULL)", path, i, ct))
		}
	}
	db := openDB(t, setup...)
	ctx := context.Background()
	for i, ct := range colTypes {
		for id, lit := range literals {
			_, fastErr := db.Exec(ctx, fmt.Sprintf("INSERT INTO fast_%d VALUES (%d, %s)", i, id, lit))
			_, generalErr := db.Exec(ctx, fmt.Sprintf("/* general */ INSERT INTO general_%d VALUES (%d, %s)", i, id, lit))
			if fmt.Sprint(fastErr) != fmt.Sprint(generalErr) {
				t.Errorf("%s <- %s: fast path: %v; general path: %v", ct, lit, fastErr, generalErr)
			}
		}
		fast, general := dumpTable(t, db, fmt.Sprintf("fast_%d", i)), dumpTable(t, db, fmt.Sprintf("general_%d", i))
		if fast != general {
			t.Errorf("%s: fast path stored\n%s\ngeneral path\n%s", ct, fast, general)
		}
	}

	// Column lists, defaults for the columns left out, and the errors about
	// the list itself.
	db = openDB(t, "CREATE TABLE fast (a int, b text DEFAULT 'dflt', c int8 NOT NULL DEFAULT 9)",
		"CREATE TABLE general (a int, b text DEFAULT 'dflt', c int8 NOT NULL DEFAULT 9)")
	for _, tail := range []string{
		"VALUES (1)", "VALUES (2, 'x')", "VALUES (3, DEFAULT, DEFAULT)", "(c, a) VALUES (4, 5), (6, 7)",
		"(b) VALUES ('only b')", "VALUES (1, 'x', 3, 4)", "(a, b) VALUES (1)", "(a, a) VALUES (1, 2)",
		"(nope) VALUES (1)", "(c) VALUES (NULL)", "VALUES (1, 2), (3)", "VALUES (1), (2, 3)",
	} {
		_, fastErr := db.Exec(ctx, "INSERT INTO fast "+tail)
		_, generalErr := db.Exec(ctx, "/**/ INSERT INTO general "+tail)
		fastMsg := strings.ReplaceAll(fmt.Sprint(fastErr), "fast", "T")
		generalMsg := strings.ReplaceAll(fmt.Sprint(generalErr), "general", "T")
		if fastMsg != generalMsg {
			t.Errorf("INSERT INTO ... %s: fast path: %s; general path: %s", tail, fastMsg, generalMsg)
		}
	}
	if fast, general := dumpTable(t, db, "fast"), dumpTable(t, db, "general"); fast != general {
		t.Errorf("fast path stored\n%s\ngeneral path\n%s", fast, general)
	}
	// ON CONFLICT DO NOTHING, which the fast path reads too.
	db = openDB(t, "CREATE TABLE fast (a int PRIMARY KEY, b text UNIQUE)", "CREATE TABLE general (a int PRIMARY KEY, b text UNIQUE)")
	for _, tail := range []string{
		"VALUES (1, 'x'), (2, 'y')", "VALUES (1, 'z'), (3, 'x'), (4, 'w') ON CONFLICT DO NOTHING",
		"VALUES (1, 'q') ON CONFLICT (a) DO NOTHING", "VALUES (5, 'x') ON CONFLICT (a) DO NOTHING",
		"VALUES (6, 'v') ON CONFLICT (b) DO NOTHING", "VALUES (7, 'u') ON CONFLICT (nope) DO NOTHING",
	} {
		fastRes, fastErr := db.Exec(ctx, "INSERT INTO fast "+tail)
		generalRes, generalErr := db.Exec(ctx, "/**/ INSERT INTO general "+tail)
		fastMsg := strings.ReplaceAll(fmt.Sprint(fastErr), "fast", "T")
		generalMsg := strings.ReplaceAll(fmt.Sprint(generalErr), "general", "T")
		var fastN, generalN int64
		if fastErr == nil {
			fastN, _ = fastRes.RowsAffected()
			generalN, _ = generalRes.RowsAffected()
		}
		if fastMsg != generalMsg || fastN != generalN {
			t.Errorf("INSERT INTO ... %s: fast path: %d rows, %s; general path: %d rows, %s", tail, fastN, fastMsg, generalN, generalMsg)
		}
	}
	if fast, general := dumpTable(t, db, "fast"), dumpTable(t, db, "general"); fast != general {
		t.Errorf("ON CONFLICT: fast path stored\n%s\ngeneral path\n%s", fast, general)
	}
	if _, err := db.Exec(ctx, "INSERT INTO nosuch VALUES (1)"); err == nil || !strings.Contains(err.Error(), `"nosuch" does not exist`) {
		t.Errorf("INSERT into a missing table: %v", err)
	}
}

// A literal that needs a run-time cast fails when the statement runs, not
// when it is prepared, on both paths, as in PostgreSQL.
func TestFastInsertCastFailsAtExecute(t *testing.T) {
	conn, err := pgx.Connect(context.Background(), serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	ctx := context.Background()
	if _, err := conn.Exec(ctx, "CREATE TABLE s (v int2)"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"INSERT INTO s VALUES (99999)", "/**/ INSERT INTO s VALUES (99999)"} {
		if _, err := conn.Prepare(ctx, "", q); err != nil {
			t.Fatalf("%s: prepare: %v", q, err)
		}
		_, err := conn.Exec(ctx, q)
		if code := sqlstate(err); code != "22003" {
			t.Errorf("%s: %v (%s), want 22003 at execute", q, err, code)
		}
	}
}

func dumpTable(t *testing.T, db *epochdb.DB, table string) string {
	t.Helper()
	rows, err := db.Query(context.Background(), "SELECT * FROM "+table+" ORDER BY 1, 2")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%v\n", vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
