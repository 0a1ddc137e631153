package clienttest

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lib/pq"
)

// TestLibPQ runs lib/pq through database/sql. lib/pq always asks for text
// results; with binary_parameters=yes it sends []byte parameters in binary.
func TestLibPQ(t *testing.T) {
	t.Parallel()
	tg := startTarget(t)
	ctx := t.Context()
	open := func(options string) *sql.DB {
		db, err := sql.Open("postgres", tg.url()+options)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	db := open("&timezone=UTC")
	// lib/pq pings with an empty query, ";".
	if err := db.PingContext(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, createMatrix); err != nil {
		t.Fatal(err)
	}

	canonical := []any{
		1, true, math.MinInt16, math.MaxInt32, int64(math.MinInt64),
		float32(3.14159), 0.1, "12345678901234567890.123456789",
		`héllo, "wörld" \ 'q'`, "abc", "ab", []byte{0x00, 0xff, 0x10},
		time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 13, 45, 56, 123456000, time.UTC),
		time.Date(2024, 2, 29, 13, 45, 56, 123456000, time.UTC),
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "1 year 2 mons 3 days 04:05:06.789",
	}
	wantCanonical := `1 | true | -32768 | 2147483647 | -9223372036854775808 | 3.14159 | 0.1 | 12345678901234567890.123456789 | ` +
		`héllo, "wörld" \ 'q' | abc | ab    | \x00ff10 | 2024-02-29T00:00:00Z | 2024-02-29T13:45:56.123456Z | 2024-02-29T13:45:56.123456Z | ` +
		`a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11 | 1 year 2 mons 3 days 04:05:06.789`
	nullRow := func(id int) []any { row := make([]any, len(canonical)); row[0] = id; return row }
	wantNull := func(id int) string { return fmt.Sprint(id) + strings.Repeat(" | NULL", len(canonical)-1) }

	read := func(db *sql.DB, id int) string {
		t.Helper()
		var (
			idOut             int32
			b                 *bool
			i2                *int16
			i4                *int32
			i8                *int64
			f4                *float32
			f8                *float64
			num, text, vc, ch *string
			bytea             []byte
			date, ts, tstz    *time.Time
			uuid, interval    *string
		)
		err := db.QueryRowContext(ctx, selectMatrix, id).Scan(&idOut, &b, &i2, &i4, &i8, &f4, &f8, &num,
			&text, &vc, &ch, &bytea, &date, &ts, &tstz, &uuid, &interval)
		if err != nil {
			t.Fatalf("read %d: %v", id, err)
		}
		var byteaOut any = bytea
		if bytea == nil {
			byteaOut = nil
		}
		return show([]any{idOut, b, i2, i4, i8, f4, f8, num, text, vc, ch, byteaOut, date, ts, tstz, uuid, interval})
	}

	// Parameters in, text out; then []byte parameters in binary.
	for _, c := range []struct {
		db   *sql.DB
		name string
		id   int
	}{{db, "text parameters", 1}, {open("&timezone=UTC&binary_parameters=yes"), "binary_parameters=yes", 3}} {
		row := append([]any{c.id}, canonical[1:]...)
		if _, err := c.db.ExecContext(ctx, insertMatrix, row...); err != nil {
			t.Fatalf("%s: insert: %v", c.name, err)
		}
		if _, err := c.db.ExecContext(ctx, insertMatrix, nullRow(c.id+1)...); err != nil {
			t.Fatalf("%s: insert NULLs: %v", c.name, err)
		}
		if got, want := read(c.db, c.id), strings.Replace(wantCanonical, "1", fmt.Sprint(c.id), 1); got != want {
			t.Errorf("%s: read back\n  %s\nwant\n  %s", c.name, got, want)
		}
		if got := read(c.db, c.id+1); got != wantNull(c.id+1) {
			t.Errorf("%s: read back\n  %s\nwant\n  %s", c.name, got, wantNull(c.id+1))
		}
	}

	countRows := func(where string) (n int) {
		t.Helper()
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM matrix WHERE "+where).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	pqCode := func(err error) pq.ErrorCode {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) {
			return pqErr.Code
		}
		return ""
	}

	// A transaction that commits and one that rolls back.
	for _, c := range []struct {
		id     int
		commit bool
	}{{10, true}, {11, false}} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO matrix (id) VALUES ($1)", c.id); err != nil {
			t.Fatal(err)
		}
		if c.commit {
			err = tx.Commit()
		} else {
			err = tx.Rollback()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if n10, n11 := countRows("id = 10"), countRows("id = 11"); n10 != 1 || n11 != 0 {
		t.Errorf("after commit and rollback: %d rows of id 10 (want 1), %d of id 11 (want 0)", n10, n11)
	}

	// 23505, and the connection goes on.
	if _, err := db.ExecContext(ctx, "INSERT INTO matrix (id) VALUES ($1)", 1); pqCode(err) != "23505" {
		t.Errorf("duplicate key: %v, want SQLSTATE 23505", err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO matrix (id) VALUES (1)"); pqCode(err) != "23505" {
		t.Errorf("duplicate key, simple query: %v, want SQLSTATE 23505", err)
	}

	// A prepared statement, reused.
	ins, err := db.PrepareContext(ctx, "INSERT INTO matrix (id, c_text, c_int8) VALUES ($1, $2, $3)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	sel, err := db.PrepareContext(ctx, "SELECT c_text, c_int8 FROM matrix WHERE id = $1")
	if err != nil {
		t.Fatal(err)
	}
	defer sel.Close()
	for i := range 8 {
		if _, err := ins.ExecContext(ctx, 20+i, fmt.Sprint("p", i), i*1000); err != nil {
			t.Fatal(err)
		}
		var text string
		var i8 int64
		if err := sel.QueryRowContext(ctx, 20+i).Scan(&text, &i8); err != nil || text != fmt.Sprint("p", i) || i8 != int64(i*1000) {
			t.Errorf("execution %d: %q %d %v", i+1, text, i8, err)
		}
	}

	// pq.CopyIn: COPY FROM STDIN in text format, in a transaction.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	stmt, err := tx.PrepareContext(ctx, pq.CopyIn("matrix", "id", "c_text", "c_bytea", "c_numeric", "c_timestamptz"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		var text any = fmt.Sprintf("copy %d\t\\ \"%d\"", i, i)
		if i == 0 {
			text = nil
		}
		if _, err := stmt.ExecContext(ctx, 100+i, text, []byte{byte(i), 0xff}, fmt.Sprintf("%d.25", i), canonical[14]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := stmt.ExecContext(ctx); err != nil {
		t.Fatalf("CopyIn flush: %v", err)
	}
	if err := stmt.Close(); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var text sql.NullString
	var bytea []byte
	var num string
	var tstz time.Time
	if err := db.QueryRowContext(ctx, "SELECT c_text, c_bytea, c_numeric, c_timestamptz FROM matrix WHERE id = 149").Scan(&text, &bytea, &num, &tstz); err != nil {
		t.Fatal(err)
	}
	if text.String != "copy 49\t\\ \"49\"" || string(bytea) != "\x31\xff" || num != "49.25" || !tstz.Equal(canonical[14].(time.Time)) {
		t.Errorf("copied row: %q %x %q %v", text.String, bytea, num, tstz)
	}
	if n := countRows("id >= 100 AND c_text IS NULL"); n != 1 || countRows("id >= 100") != 50 {
		t.Errorf("copied %d rows, %d with a NULL text", countRows("id >= 100"), n)
	}

	// A CopyIn that fails (a duplicate key) leaves nothing behind.
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	stmt, err = tx.PrepareContext(ctx, pq.CopyIn("matrix", "id"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{300, 301, 1, 302} {
		if _, err = stmt.ExecContext(ctx, id); err != nil {
			break
		}
	}
	if err == nil {
		_, err = stmt.ExecContext(ctx)
	}
	if pqCode(err) != "23505" {
		t.Errorf("CopyIn of a duplicate key: %v, want SQLSTATE 23505", err)
	}
	stmt.Close()
	tx.Rollback()
	if n := countRows("id >= 300"); n != 0 {
		t.Errorf("%d rows of the failed CopyIn stayed", n)
	}

	// json and jsonb (see json_test.go): lib/pq sends documents as strings
	// or []byte and reads them as text. With binary_parameters=yes a []byte
	// goes in binary, which is json's text but not jsonb's (that needs the
	// version byte first): a []byte of JSON text is no binary jsonb.
	testLibPQJSON(t, db, open("&timezone=UTC&binary_parameters=yes"))
}

func testLibPQJSON(t *testing.T, db, binDB *sql.DB) {
	ctx := t.Context()
	if _, err := db.ExecContext(ctx, createJdocs); err != nil {
		t.Fatal(err)
	}
	insert := "INSERT INTO jdocs VALUES ($1, $2, $3)"
	if _, err := db.ExecContext(ctx, insert, 1, jsonbIn, []byte(jsonDoc)); err != nil {
		t.Fatalf("insert, text parameters: %v", err)
	}
	if _, err := binDB.ExecContext(ctx, insert, 2, jsonbIn, []byte(jsonDoc)); err != nil {
		t.Fatalf("insert, binary_parameters=yes: %v", err)
	}
	if _, err := binDB.ExecContext(ctx, insert, 3, []byte(jsonbIn), nil); err == nil {
		t.Errorf("insert, binary_parameters=yes: a []byte of JSON text accepted as binary jsonb")
	}
	if _, err := db.ExecContext(ctx, insert, 3, nil, "null"); err != nil {
		t.Fatal(err)
	}

	rows, err := db.QueryContext(ctx, "SELECT j, t FROM jdocs WHERE id IN ($1, $2) ORDER BY id", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	cts, err := rows.ColumnTypes()
	if err != nil || len(cts) != 2 || cts[0].DatabaseTypeName() != "JSONB" || cts[1].DatabaseTypeName() != "JSON" {
		t.Errorf("column types: %v, want JSONB, JSON", err)
	}
	n := 0
	for rows.Next() {
		n++
		var j []byte
		var tx string
		var m map[string]any
		if err := rows.Scan(&j, &tx); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(j, &m); err != nil || string(j) != jsonbText || !reflect.DeepEqual(m, jsonbRead) || tx != jsonDoc {
			t.Errorf("row %d: %s, %s (%v)\nwant %s, %s", n, j, tx, err, jsonbText, jsonDoc)
		}
	}
	if err := rows.Err(); err != nil || n != 2 {
		t.Errorf("%d rows, %v", n, err)
	}
	var jNull, tNull sql.NullString
	if err := db.QueryRowContext(ctx, "SELECT j, t FROM jdocs WHERE id = 3").Scan(&jNull, &tNull); err != nil ||
		jNull.Valid || tNull != (sql.NullString{String: "null", Valid: true}) {
		t.Errorf("row 3: %v, %v, %v, want SQL NULL and the JSON null", jNull, tNull, err)
	}

	const opQuery = "SELECT j ->> $1, j -> 'b', t -> 'a' FROM jdocs WHERE j @> $2::jsonb AND id = $3"
	for _, c := range []struct {
		db   *sql.DB
		name string
	}{{db, "text parameters"}, {binDB, "binary_parameters=yes"}} {
		var s, b, a string
		if err := c.db.QueryRowContext(ctx, opQuery, "s", `{"b": [2]}`, 1).Scan(&s, &b, &a); err != nil ||
			s != `héllo "w" \ é` || b != "[1, 2]" || a != "2" {
			t.Errorf("%s: %s: %q %q %q, %v", c.name, opQuery, s, b, a, err)
		}
	}
	var count int
	if err := binDB.QueryRowContext(ctx, "SELECT count(*) FROM jdocs WHERE t::jsonb @> $1::json::jsonb", []byte(`{"a": 2}`)).Scan(&count); err != nil || count != 2 {
		t.Errorf("binary json parameter in @>: %d rows, %v, want 2", count, err)
	}
}
