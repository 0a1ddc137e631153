package clienttest

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgtype"
)

// createMatrix is the table every client creates.
const createMatrix = `CREATE TABLE matrix (
  id int4 PRIMARY KEY,
  c_bool bool, c_int2 int2, c_int4 int4, c_int8 int8,
  c_float4 float4, c_float8 float8, c_numeric numeric,
  c_text text, c_varchar varchar(10), c_char char(5), c_bytea bytea,
  c_date date, c_timestamp timestamp, c_timestamptz timestamptz,
  c_uuid uuid, c_interval interval)`

const (
	insertMatrix = `INSERT INTO matrix VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`
	selectMatrix = `SELECT * FROM matrix WHERE id = $1`
)

// The canonical row's columns as PostgreSQL 15 sends them, with TimeZone
// UTC: the text and the binary encoding of each, and the type OIDs.
var (
	canonicalOIDs = []uint32{
		pgtype.Int4OID, pgtype.BoolOID, pgtype.Int2OID, pgtype.Int4OID, pgtype.Int8OID,
		pgtype.Float4OID, pgtype.Float8OID, pgtype.NumericOID,
		pgtype.TextOID, pgtype.VarcharOID, pgtype.BPCharOID, pgtype.ByteaOID,
		pgtype.DateOID, pgtype.TimestampOID, pgtype.TimestamptzOID,
		pgtype.UUIDOID, pgtype.IntervalOID,
	}
	canonicalText = []string{
		"1", "t", "-32768", "2147483647", "-9223372036854775808",
		"3.14159", "0.1", "12345678901234567890.123456789",
		`héllo, "wörld" \ 'q'`, "abc", "ab   ", `\x00ff10`,
		"2024-02-29", "2024-02-29 13:45:56.123456", "2024-02-29 13:45:56.123456+00",
		"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "1 year 2 mons 3 days 04:05:06.789",
	}
	canonicalBinaryHex = []string{
		"00000001", "01", "8000", "7fffffff", "8000000000000000",
		"40490fd0", "3fb999999999999a", "000800040000000904d2162e23340d801ed204d2162e2328",
		hex.EncodeToString([]byte(`héllo, "wörld" \ 'q'`)), "616263", "6162202020", "00ff10",
		"00002279", "0002b5843f52cf40", "0002b5843f52cf40",
		"a0eebc999c0b4ef8bb6d6bb9bd380a11", "000000036c97ca88000000030000000e",
	}
	// canonicalCopyText is the row in COPY's text format, without the id.
	canonicalCopyText = "t\t-32768\t2147483647\t-9223372036854775808\t3.14159\t0.1\t12345678901234567890.123456789\t" +
		`héllo, "wörld" \\ 'q'` + "\tabc\tab   \t\\\\x00ff10\t2024-02-29\t2024-02-29 13:45:56.123456\t" +
		"2024-02-29 13:45:56.123456+00\ta0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11\t1 year 2 mons 3 days 04:05:06.789"
)

// canonicalGo returns the canonical row as the Go values pgx sends and
// scans, with id as given.
func canonicalGo(id int32) []any {
	var n pgtype.Numeric
	if err := n.Scan("12345678901234567890.123456789"); err != nil {
		panic(err)
	}
	return []any{
		id, true, int16(math.MinInt16), int32(math.MaxInt32), int64(math.MinInt64),
		float32(3.14159), 0.1, n,
		`héllo, "wörld" \ 'q'`, "abc", "ab   ", []byte{0x00, 0xff, 0x10},
		time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 13, 45, 56, 123456000, time.UTC),
		time.Date(2024, 2, 29, 13, 45, 56, 123456000, time.UTC),
		pgtype.UUID{Bytes: [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}, Valid: true},
		pgtype.Interval{Months: 14, Days: 3, Microseconds: ((4*60+5)*60+6)*1e6 + 789000, Valid: true},
	}
}

// nullGo is the all-NULL row with id as given.
func nullGo(id int32) []any {
	row := make([]any, len(canonicalOIDs))
	row[0] = id
	return row
}

// scanTargets returns pointers to pointers of the canonical row's Go types,
// so a NULL scans as a nil pointer.
func scanTargets() []any {
	var targets []any
	for _, v := range canonicalGo(0) {
		targets = append(targets, reflect.New(reflect.PointerTo(reflect.TypeOf(v))).Interface())
	}
	return targets
}

// show formats a row of Go values (or of scan targets) for comparison.
func show(row []any) string {
	var parts []string
	for _, v := range row {
		parts = append(parts, showValue(v))
	}
	return strings.Join(parts, " | ")
}

func showValue(v any) string {
	rv := reflect.ValueOf(v)
	for rv.IsValid() && rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return "NULL"
		}
		rv = rv.Elem()
	}
	if !rv.IsValid() {
		return "NULL"
	}
	switch v := rv.Interface().(type) {
	case float32:
		return strconv.FormatFloat(float64(v), 'g', -1, 32)
	case []byte:
		return `\x` + hex.EncodeToString(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case pgtype.Numeric:
		s, err := v.Value()
		if err != nil {
			return err.Error()
		}
		return fmt.Sprint(s)
	case pgtype.UUID:
		s, _ := v.Value()
		return fmt.Sprint(s)
	case pgtype.Interval:
		return fmt.Sprintf("%d months %d days %dus", v.Months, v.Days, v.Microseconds)
	default:
		return fmt.Sprint(v)
	}
}

// connectPgx connects to tg in the given mode, with the session in UTC.
func connectPgx(t *testing.T, tg target, mode pgx.QueryExecMode) *pgx.Conn {
	t.Helper()
	cfg, err := pgx.ParseConfig(tg.url())
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = mode
	cfg.RuntimeParams["timezone"] = "UTC"
	conn, err := pgx.ConnectConfig(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func mustExec(t *testing.T, conn *pgx.Conn, sql string, args ...any) pgconn.CommandTag {
	t.Helper()
	tag, err := conn.Exec(t.Context(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return tag
}

// checkRow reads the row with the given id, scanned into Go values, and
// compares it with want. Extra query options (result formats) go first.
func checkRow(t *testing.T, conn *pgx.Conn, what string, want []any, options ...any) {
	t.Helper()
	targets := scanTargets()
	if err := conn.QueryRow(t.Context(), selectMatrix, append(options, want[0])...).Scan(targets...); err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if got, want := show(targets), show(want); got != want {
		t.Errorf("%s: read back\n  %s\nwant\n  %s", what, got, want)
	}
}

func count(t *testing.T, conn *pgx.Conn, where string) int64 {
	t.Helper()
	var n int64
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM matrix WHERE "+where).Scan(&n); err != nil {
		t.Fatalf("count where %s: %v", where, err)
	}
	return n
}

func sqlState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// pgxModes are pgx's QueryExecModes, each of which the tests run in.
var pgxModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

// inEveryPgxMode runs step as a parallel subtest in each of pgxModes,
// each on a target of its own.
func inEveryPgxMode(t *testing.T, step func(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode)) {
	for _, mode := range pgxModes {
		t.Run(mode.String(), func(t *testing.T) {
			t.Parallel()
			step(t, connectPgx(t, startTarget(t), mode), mode)
		})
	}
}

// queryIDs runs a query of one int4 column and returns its values.
func queryIDs(t *testing.T, conn *pgx.Conn, sql string, args ...any) []int32 {
	t.Helper()
	rows, err := conn.Query(t.Context(), sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return got
}

// TestPgx runs pgx v5 in every QueryExecMode, then the wire formats, COPY
// and Batch through pgconn and pgx directly.
func TestPgx(t *testing.T) {
	t.Parallel()
	inEveryPgxMode(t, testPgxMode)
	t.Run("formats", func(t *testing.T) {
		t.Parallel()
		testPgxFormats(t, connectPgx(t, startTarget(t), pgx.QueryExecModeCacheStatement))
	})
	t.Run("copy", func(t *testing.T) {
		t.Parallel()
		testPgxCopy(t, connectPgx(t, startTarget(t), pgx.QueryExecModeCacheStatement))
	})
	t.Run("protocol", func(t *testing.T) {
		t.Parallel()
		testPgxProtocol(t, startTarget(t))
	})
	t.Run("portal", func(t *testing.T) {
		t.Parallel()
		testPgconnPortal(t, startTarget(t))
	})
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		testPgxJSONAll(t) // json_test.go
	})
	t.Run("enum", func(t *testing.T) {
		t.Parallel()
		testPgxEnum(t, startTarget(t))
	})
	t.Run("network", func(t *testing.T) {
		t.Parallel()
		testPgxNetworkAll(t) // network_test.go
	})
}

// testPgxEnum passes enum values as parameters, which pgx, knowing
// nothing of the type's oid, sends as text, and reads them back, in
// every mode: rows sort by the labels' declared order.
func testPgxEnum(t *testing.T, tg target) {
	ctx := t.Context()
	setup := connectPgx(t, tg, pgx.QueryExecModeCacheStatement)
	mustExec(t, setup, "CREATE TYPE pgx_mood AS ENUM ('sad', 'ok', 'happy')")
	for i, mode := range pgxModes {
		conn := connectPgx(t, tg, mode)
		table := fmt.Sprintf("pgx_enum_%d", i)
		mustExec(t, conn, "CREATE TABLE "+table+" (id int PRIMARY KEY, m pgx_mood)")
		for id, m := range []string{"happy", "sad", "ok"} {
			mustExec(t, conn, "INSERT INTO "+table+" VALUES ($1, $2)", id+1, m)
		}
		rows, err := conn.Query(ctx, "SELECT m, m::text AS label FROM "+table+" WHERE m >= $1 ORDER BY m", "ok")
		if err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		var got []string
		for rows.Next() {
			var m, text string
			if err := rows.Scan(&m, &text); err != nil {
				t.Fatalf("%s: %v", mode, err)
			}
			got = append(got, m+"/"+text)
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", mode, err)
		}
		if want := []string{"ok/ok", "happy/happy"}; !slices.Equal(got, want) {
			t.Errorf("%s: read %v, want %v", mode, got, want)
		}
		_, err = conn.Exec(ctx, "INSERT INTO "+table+" VALUES ($1, $2)", 9, "angry")
		if code := sqlState(err); code != "22P02" {
			t.Errorf("%s: an unknown label gave %v (SQLSTATE %q), want 22P02", mode, err, code)
		}
	}
}

func testPgxMode(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := t.Context()
	mustExec(t, conn, createMatrix)

	// Parameters in, values out, for the canonical row and a NULL row.
	if tag := mustExec(t, conn, insertMatrix, canonicalGo(1)...); tag.String() != "INSERT 0 1" {
		t.Errorf("insert: tag %q", tag)
	}
	mustExec(t, conn, insertMatrix, nullGo(2)...)
	checkRow(t, conn, "canonical row", canonicalGo(1))
	checkRow(t, conn, "NULL row", nullGo(2))
	if mode != pgx.QueryExecModeSimpleProtocol { // always text
		for _, f := range []int16{pgx.TextFormatCode, pgx.BinaryFormatCode} {
			formats := pgx.QueryResultFormats{f}
			checkRow(t, conn, fmt.Sprintf("canonical row, result format %d", f), canonicalGo(1), formats)
			checkRow(t, conn, fmt.Sprintf("NULL row, result format %d", f), nullGo(2), formats)
		}
	}
	rows, err := conn.Query(ctx, selectMatrix, 1)
	if err != nil {
		t.Fatal(err)
	}
	values, err := pgx.CollectOneRow(rows, pgx.RowToMap)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := values["c_numeric"].(pgtype.Numeric); !ok || showValue(n) != canonicalText[7] {
		t.Errorf("c_numeric scanned into any: %#v", values["c_numeric"])
	}

	// A transaction that commits, one that rolls back, one that fails.
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx.Conn(), "INSERT INTO matrix (id, c_text) VALUES ($1, $2)", 3, "committed")
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	tx, err = conn.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	mustExec(t, tx.Conn(), "INSERT INTO matrix (id, c_text) VALUES ($1, $2)", 4, "rolled back")
	if n := count(t, tx.Conn(), "id = 4"); n != 1 {
		t.Errorf("inside the transaction, %d rows of id 4", n)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n3, n4 := count(t, conn, "id = 3"), count(t, conn, "id = 4"); n3 != 1 || n4 != 0 {
		t.Errorf("after commit and rollback: %d rows of id 3 (want 1), %d of id 4 (want 0)", n3, n4)
	}

	// 23505, outside and inside a transaction.
	if _, err := conn.Exec(ctx, "INSERT INTO matrix (id) VALUES ($1)", 1); sqlState(err) != "23505" {
		t.Errorf("duplicate key: %v, want SQLSTATE 23505", err)
	}
	err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "INSERT INTO matrix (id) VALUES ($1)", 5); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO matrix (id) VALUES ($1)", 1)
		if sqlState(err) != "23505" {
			t.Errorf("duplicate key in a transaction: %v, want SQLSTATE 23505", err)
		}
		if _, err := tx.Exec(ctx, "SELECT 1"); sqlState(err) != "25P02" {
			t.Errorf("after an error in a transaction: %v, want SQLSTATE 25P02", err)
		}
		return err
	})
	if sqlState(err) != "23505" || count(t, conn, "id = 5") != 0 {
		t.Errorf("BeginFunc returned %v, and the failed transaction's row is there: %v", err, count(t, conn, "id = 5") != 0)
	}
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("after the errors: %v", err)
	}

	// A prepared statement, reused.
	if _, err := conn.Prepare(ctx, "ins", "INSERT INTO matrix (id, c_text, c_numeric) VALUES ($1, $2, $3)"); err != nil {
		t.Fatal(err)
	}
	sel, err := conn.Prepare(ctx, "sel", "SELECT c_text, c_numeric FROM matrix WHERE id = $1")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(sel.ParamOIDs); got != 1 || sel.ParamOIDs[0] != pgtype.Int4OID {
		t.Errorf("sel's parameter types: %v, want [int4]", sel.ParamOIDs)
	}
	for i := range int32(8) {
		mustExec(t, conn, "ins", 10+i, fmt.Sprint("p", i), fmt.Sprintf("%d.5", i))
		var text, num string
		if err := conn.QueryRow(ctx, "sel", 10+i).Scan(&text, &num); err != nil {
			t.Fatal(err)
		} else if want := fmt.Sprint("p", i); text != want || num != fmt.Sprintf("%d.5", i) {
			t.Errorf("execution %d of sel: %q, %q", i+1, text, num)
		}
	}

	// A batch, then a batch whose second statement fails: it runs as one
	// implicit transaction, so nothing of it stays.
	b := &pgx.Batch{}
	b.Queue("INSERT INTO matrix (id, c_text) VALUES ($1, $2)", 30, "batch")
	b.Queue("SELECT c_text FROM matrix WHERE id = $1", 30)
	b.Queue("UPDATE matrix SET c_int8 = $1 WHERE id = $2", int64(7), 30)
	b.Queue("SELECT c_int8 FROM matrix WHERE id = $1", 30)
	br := conn.SendBatch(ctx, b)
	var text string
	var i8 int64
	if _, err := br.Exec(); err != nil {
		t.Error(err)
	}
	if err := br.QueryRow().Scan(&text); err != nil || text != "batch" {
		t.Errorf("batch select: %q, %v", text, err)
	}
	if tag, err := br.Exec(); err != nil || tag.String() != "UPDATE 1" {
		t.Errorf("batch update: %q, %v", tag, err)
	}
	if err := br.QueryRow().Scan(&i8); err != nil || i8 != 7 {
		t.Errorf("batch select: %d, %v", i8, err)
	}
	if err := br.Close(); err != nil {
		t.Error(err)
	}
	b = &pgx.Batch{}
	b.Queue("INSERT INTO matrix (id) VALUES ($1)", 31)
	b.Queue("INSERT INTO matrix (id) VALUES ($1)", 1)
	b.Queue("INSERT INTO matrix (id) VALUES ($1)", 32)
	if err := conn.SendBatch(ctx, b).Close(); sqlState(err) != "23505" {
		t.Errorf("failing batch: %v, want SQLSTATE 23505", err)
	}
	if n := count(t, conn, "id IN (31, 32)"); n != 0 {
		t.Errorf("%d rows of the failed batch stayed", n)
	}
	if n := count(t, conn, "true"); n != 2+1+8+1 {
		t.Errorf("%d rows at the end, want 12", n)
	}
}

// testPgxFormats checks the wire encodings byte for byte: parameters in text
// and in binary, and results in text, in binary, and mixed per column.
func testPgxFormats(t *testing.T, conn *pgx.Conn) {
	ctx := t.Context()
	pc := conn.PgConn()
	mustExec(t, conn, createMatrix)
	n := len(canonicalOIDs)
	encoded := func(id int32, format int16) [][]byte {
		vals := make([][]byte, n)
		for i := range vals {
			if format == pgx.TextFormatCode {
				vals[i] = []byte(canonicalText[i])
			} else {
				vals[i] = must(hex.DecodeString(canonicalBinaryHex[i]))
			}
		}
		if format == pgx.TextFormatCode {
			vals[0] = []byte(strconv.Itoa(int(id)))
		} else {
			vals[0] = []byte{byte(id >> 24), byte(id >> 16), byte(id >> 8), byte(id)}
		}
		return vals
	}
	formats := func(f func(i int) int16) []int16 {
		out := make([]int16, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	text := formats(func(int) int16 { return pgx.TextFormatCode })
	binary := formats(func(int) int16 { return pgx.BinaryFormatCode })
	mixed := formats(func(i int) int16 { return int16(i % 2) })

	// Parameters: 1 in text, 2 in binary, 3 mixed; with the types given,
	// and 4 with the types left to the server.
	for _, c := range []struct {
		id      int32
		formats []int16
		oids    []uint32
	}{{1, text, canonicalOIDs}, {2, binary, canonicalOIDs}, {3, mixed, canonicalOIDs}, {4, text, nil}} {
		params := encoded(c.id, pgx.TextFormatCode)
		for i, f := range c.formats {
			if f == pgx.BinaryFormatCode {
				params[i] = encoded(c.id, pgx.BinaryFormatCode)[i]
			}
		}
		if _, err := pc.ExecParams(ctx, insertMatrix, params, c.oids, c.formats, nil).Close(); err != nil {
			t.Fatalf("insert %d with parameter formats %v: %v", c.id, c.formats, err)
		}
	}
	for id := range int32(4) {
		for _, resultFormats := range [][]int16{text, binary, mixed} {
			rr := pc.ExecParams(ctx, selectMatrix, [][]byte{[]byte(strconv.Itoa(int(id + 1)))}, nil, nil, resultFormats)
			rows := 0
			for rr.NextRow() {
				rows++
				for i, fd := range rr.FieldDescriptions() {
					got, want := rr.Values()[i], encoded(id+1, resultFormats[i])[i]
					if fd.DataTypeOID != canonicalOIDs[i] || fd.Format != resultFormats[i] || string(got) != string(want) {
						t.Errorf("row %d, %s (format %d): type %d format %d %q, want type %d %q",
							id+1, fd.Name, resultFormats[i], fd.DataTypeOID, fd.Format, got, canonicalOIDs[i], want)
					}
				}
			}
			if _, err := rr.Close(); err != nil || rows != 1 {
				t.Errorf("select %d: %d rows, %v", id+1, rows, err)
			}
		}
	}
}

// testPgxCopy runs pgx's CopyFrom, which sends COPY's binary format, and
// COPY TO STDOUT in text, CSV and binary.
func testPgxCopy(t *testing.T, conn *pgx.Conn) {
	ctx := t.Context()
	mustExec(t, conn, createMatrix)
	columns := []string{"id", "c_bool", "c_int2", "c_int4", "c_int8", "c_float4", "c_float8", "c_numeric",
		"c_text", "c_varchar", "c_char", "c_bytea", "c_date", "c_timestamp", "c_timestamptz", "c_uuid", "c_interval"}
	rows := [][]any{canonicalGo(1), nullGo(2)}
	for i := range int32(100) {
		rows = append(rows, canonicalGo(100+i))
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"matrix"}, columns, pgx.CopyFromRows(rows))
	if err != nil || n != int64(len(rows)) {
		t.Fatalf("CopyFrom: %d rows, %v", n, err)
	}
	checkRow(t, conn, "canonical row", canonicalGo(1))
	checkRow(t, conn, "NULL row", nullGo(2))
	checkRow(t, conn, "copied row 199", canonicalGo(199))

	// A failing CopyFrom (a duplicate key) leaves nothing behind.
	_, err = conn.CopyFrom(ctx, pgx.Identifier{"matrix"}, []string{"id"}, pgx.CopyFromRows([][]any{{int32(3)}, {int32(1)}}))
	if sqlState(err) != "23505" || count(t, conn, "id = 3") != 0 {
		t.Errorf("CopyFrom of a duplicate: %v, want 23505 and no rows", err)
	}

	for _, c := range []struct{ sql, want string }{
		{"COPY (SELECT * FROM matrix WHERE id <= 2 ORDER BY id) TO STDOUT",
			"1\t" + canonicalCopyText + "\n2" + strings.Repeat("\t\\N", 16) + "\n"},
		{"COPY (SELECT id, c_text, c_bytea, c_numeric FROM matrix WHERE id <= 2 ORDER BY id) TO STDOUT (FORMAT csv, HEADER)",
			"id,c_text,c_bytea,c_numeric\n1,\"héllo, \"\"wörld\"\" \\ 'q'\",\\x00ff10,12345678901234567890.123456789\n2,,,\n"},
		{"COPY (SELECT * FROM matrix WHERE id <= 2 ORDER BY id) TO STDOUT (FORMAT binary)", canonicalCopyBinary()},
	} {
		var out strings.Builder
		tag, err := conn.PgConn().CopyTo(ctx, &out, c.sql)
		if err != nil || out.String() != c.want || tag.String() != "COPY 2" {
			t.Errorf("%s: %q, %v\n%q\nwant\n%q", c.sql, tag, err, out.String(), c.want)
		}
	}
}

// canonicalCopyBinary is COPY's binary format of the canonical row (id 1)
// and the NULL row (id 2): the header, each row's field count and
// length-prefixed fields (-1 for NULL), and the trailer.
func canonicalCopyBinary() string {
	b := []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	field := func(hexValue string) {
		v, err := hex.DecodeString(hexValue)
		if err != nil {
			panic(err)
		}
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(canonicalBinaryHex)))
	for _, h := range canonicalBinaryHex {
		field(h)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(len(canonicalBinaryHex)))
	field("00000002")
	for range len(canonicalBinaryHex) - 1 {
		b = binary.BigEndian.AppendUint32(b, 0xffffffff)
	}
	return string(binary.BigEndian.AppendUint16(b, 0xffff))
}

// testPgxProtocol covers what a real client meets beyond the matrix: errors
// at Parse, values of megabytes, a result of many rows and a cancelled
// statement.
func testPgxProtocol(t *testing.T, tg target) {
	ctx := t.Context()
	conn := connectPgx(t, tg, pgx.QueryExecModeCacheStatement)
	if _, err := conn.Exec(ctx, "SELEC 1"); sqlState(err) != "42601" {
		t.Errorf("syntax error: %v, want SQLSTATE 42601", err)
	}
	if _, err := conn.Exec(ctx, "SELECT * FROM no_such_table WHERE id = $1", 1); sqlState(err) != "42P01" {
		t.Errorf("unknown table: %v, want SQLSTATE 42P01", err)
	}

	mustExec(t, conn, "CREATE TABLE big (id int4 PRIMARY KEY, b bytea, t text)")
	// Values of megabytes in each protocol; in the simple one they are
	// literals in the query text.
	want := map[int][2]string{
		1: {strings.Repeat("\x00\x01\xfe\xff", 2<<20), strings.Repeat("wörld ", 1<<20)}, // 8 MiB, 7 MiB
		2: {strings.Repeat("\x00\x01\xfe\xff", 1<<18), strings.Repeat("wörld ", 1<<17)}, // 1 MiB, 0.9 MiB
	}
	mustExec(t, conn, "INSERT INTO big VALUES ($1, $2, $3)", 1, []byte(want[1][0]), want[1][1])
	mustExec(t, conn, "INSERT INTO big VALUES ($1, $2, $3)", pgx.QueryExecModeSimpleProtocol, 2, []byte(want[2][0]), want[2][1])
	for _, f := range []int16{pgx.TextFormatCode, pgx.BinaryFormatCode} {
		for id, w := range want {
			var b []byte
			var text string
			err := conn.QueryRow(ctx, "SELECT b, t FROM big WHERE id = $1", pgx.QueryResultFormats{f}, id).Scan(&b, &text)
			if err != nil || string(b) != w[0] || text != w[1] {
				t.Errorf("large values, row %d, format %d: %d bytes, %d bytes of text, %v", id, f, len(b), len(text), err)
			}
		}
	}

	const n = 20000
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = []any{int32(i), nil, fmt.Sprint("row ", i)}
	}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"big"}, []string{"id", "b", "t"}, pgx.CopyFromRows(rows[3:])); err != nil {
		t.Fatal(err)
	}
	var got, sum int64
	r, err := conn.Query(ctx, "SELECT id FROM big WHERE b IS NULL ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var id int32
		if err := r.Scan(&id); err != nil {
			t.Fatal(err)
		}
		got++
		sum += int64(id)
	}
	if err := r.Err(); err != nil || got != n-3 || sum != n*(n-1)/2-3 {
		t.Errorf("many rows: %d rows summing to %d, %v", got, sum, err)
	}

	// A statement cancelled by its context: pgx sends a CancelRequest.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = conn.Exec(cctx, "SELECT pg_sleep(30)")
	if elapsed := time.Since(start); err == nil || elapsed > 10*time.Second {
		t.Errorf("cancelled pg_sleep(30): %v after %v", err, elapsed)
	} else if code := sqlState(err); code != "57014" && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled pg_sleep(30): %v, want SQLSTATE 57014", err)
	}
	conn = connectPgx(t, tg, pgx.QueryExecModeCacheStatement) // pgx may close a cancelled connection
	if err := conn.Ping(ctx); err != nil {
		t.Error(err)
	}
}

// testPgconnPortal reads a portal in pieces through pgconn's own framing,
// which pgx's API does not expose: Execute with a row limit, answered by
// PortalSuspended, and an Execute of the rest, whose CommandComplete counts
// only the rows it sent. Two named portals suspend at once.
func testPgconnPortal(t *testing.T, tg target) {
	ctx := t.Context()
	pc, err := pgconn.Connect(ctx, tg.url())
	if err != nil {
		t.Fatal(err)
	}
	hc, err := pc.Hijack()
	if err != nil {
		t.Fatal(err)
	}
	defer hc.Conn.Close()
	fe := hc.Frontend
	fe.Send(&pgproto3.Parse{Name: "s", Query: "SELECT g FROM generate_series(1, $1::int4) g"})
	for _, m := range []struct {
		portal string
		n      string
	}{{"a", "1000"}, {"b", "400"}} {
		fe.Send(&pgproto3.Bind{DestinationPortal: m.portal, PreparedStatement: "s", Parameters: [][]byte{[]byte(m.n)}})
	}
	for _, m := range []*pgproto3.Execute{
		{Portal: "a", MaxRows: 200}, {Portal: "b", MaxRows: 400}, {Portal: "a", MaxRows: 0}, {Portal: "b", MaxRows: 1},
	} {
		fe.Send(m)
	}
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	var got []string
	rows := 0
	hc.Conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	for {
		msg, err := fe.Receive()
		if err != nil {
			t.Fatal(err)
		}
		switch msg := msg.(type) {
		case *pgproto3.DataRow:
			rows++
			continue
		case *pgproto3.PortalSuspended:
			got = append(got, fmt.Sprintf("%d rows, suspended", rows))
		case *pgproto3.CommandComplete:
			got = append(got, fmt.Sprintf("%d rows, %s", rows, msg.CommandTag))
		case *pgproto3.ErrorResponse:
			t.Fatalf("%s: %s", msg.Code, msg.Message)
		case *pgproto3.ReadyForQuery:
			want := []string{"200 rows, suspended", "400 rows, suspended", "800 rows, SELECT 800", "0 rows, SELECT 0"}
			if !slices.Equal(got, want) {
				t.Errorf("portals read in pieces:\n got %q\nwant %q", got, want)
			}
			return
		default:
			continue
		}
		rows = 0
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
