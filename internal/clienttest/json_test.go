package clienttest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// The json step of every client: a table of its own, jdocs, with a jsonb and
// a json column. Each client inserts a document through its own JSON support,
// reads it back decoded, and runs an operator query with parameters.
const createJdocs = `CREATE TABLE jdocs (id int4 PRIMARY KEY, j jsonb, t json)`

// jsonDoc is the json column's value: json keeps its text as written,
// whitespace and duplicate keys included.
const jsonDoc = `{"b": [1, 2],  "a": 1, "a": 2}`

// jsonbIn is the jsonb document as JSON text, its keys out of order and one
// of them twice; jsonbGo is the document as a Go value; jsonbText is its
// text as PostgreSQL 15's jsonb_out writes it (keys by length, then bytes,
// the last duplicate winning).
var (
	jsonbIn   = `{"s": "héllo \"w\" \\ é", "b": [1, 2], "num": 1.5, "a": 0, "n": null, "a": 1}`
	jsonbGo   = map[string]any{"s": `héllo "w" \ é`, "b": []any{1, 2}, "a": 1, "n": nil, "num": 1.5}
	jsonbText = `{"a": 1, "b": [1, 2], "n": null, "s": "héllo \"w\" \\ é", "num": 1.5}`
	// jsonbRead is jsonbGo as encoding/json decodes it: numbers are float64.
	jsonbRead = map[string]any{"s": `héllo "w" \ é`, "b": []any{1.0, 2.0}, "a": 1.0, "n": nil, "num": 1.5}
)

// jdoc is a document as a struct, the other way pgx marshals jsonb.
type jdoc struct {
	A int    `json:"a"`
	B []int  `json:"b"`
	S string `json:"s"`
}

// binaryJSONB is pgx's jsonb codec preferring the binary format, so that
// pgx both sends jsonb parameters and asks for jsonb results in binary
// (pgx v5.12 prefers text for jsonb).
type binaryJSONB struct{ *pgtype.JSONBCodec }

func (binaryJSONB) PreferredFormat() int16 { return pgtype.BinaryFormatCode }

// testPgxJSONAll is TestPgx's json subtest: the json step in every
// QueryExecMode, then with jsonb in pgx's binary codec, then the wire
// encodings byte for byte.
func testPgxJSONAll(t *testing.T) {
	inEveryPgxMode(t, testPgxJSON)
	t.Run("binary_codec", func(t *testing.T) {
		t.Parallel()
		conn := connectPgx(t, startTarget(t), pgx.QueryExecModeCacheStatement)
		conn.TypeMap().RegisterType(&pgtype.Type{Name: "jsonb", OID: pgtype.JSONBOID,
			Codec: binaryJSONB{&pgtype.JSONBCodec{Marshal: json.Marshal, Unmarshal: json.Unmarshal}}})
		testPgxJSON(t, conn, pgx.QueryExecModeCacheStatement)
	})
	t.Run("formats", func(t *testing.T) {
		t.Parallel()
		testPgxJSONFormats(t, connectPgx(t, startTarget(t), pgx.QueryExecModeCacheStatement))
	})
}

func testPgxJSON(t *testing.T, conn *pgx.Conn, mode pgx.QueryExecMode) {
	ctx := t.Context()
	mustExec(t, conn, createJdocs)

	// pgx marshals a map or a struct only for a parameter whose type it
	// knows; without a Describe (exec and simple_protocol) the program
	// marshals it itself.
	doc := func(v any) any {
		if mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol {
			return string(must(json.Marshal(v)))
		}
		return v
	}

	// 1: a map as jsonb, a json.RawMessage as json; 2: a struct as jsonb,
	// a string as json; 3: SQL NULL as jsonb, JSON null as json.
	mustExec(t, conn, "INSERT INTO jdocs VALUES ($1, $2, $3)", 1, doc(jsonbGo), json.RawMessage(jsonDoc))
	mustExec(t, conn, "INSERT INTO jdocs VALUES ($1, $2, $3)", 2, doc(jdoc{A: 2, B: []int{3}, S: "x"}), jsonDoc)
	mustExec(t, conn, "INSERT INTO jdocs VALUES ($1, $2, $3)", 3, nil, "null")

	// The jsonb binary codec must really be in use: pgx asks for jsonb
	// results in the format the codec prefers.
	wantJFormat := conn.TypeMap().FormatCodeForOID(pgtype.JSONBOID)
	if mode == pgx.QueryExecModeSimpleProtocol {
		wantJFormat = pgx.TextFormatCode
	}
	rows, err := conn.Query(ctx, "SELECT j, t FROM jdocs WHERE id = $1", 1)
	if err != nil {
		t.Fatal(err)
	}
	fds := rows.FieldDescriptions()
	if len(fds) != 2 || fds[0].DataTypeOID != pgtype.JSONBOID || fds[1].DataTypeOID != pgtype.JSONOID ||
		(mode != pgx.QueryExecModeExec && fds[0].Format != wantJFormat) {
		t.Errorf("row description of j, t: %+v, want types jsonb (3802) in format %d, json (114)", fds, wantJFormat)
	}
	rows.Close()

	var resultFormats []pgx.QueryResultFormats
	if mode != pgx.QueryExecModeSimpleProtocol { // always text
		resultFormats = []pgx.QueryResultFormats{{pgx.TextFormatCode}, {pgx.BinaryFormatCode}}
	}
	for _, f := range append([]pgx.QueryResultFormats{nil}, resultFormats...) {
		var options []any
		if f != nil {
			options = []any{f}
		}
		q := func(id int, targets ...any) {
			t.Helper()
			if err := conn.QueryRow(ctx, "SELECT j, t FROM jdocs WHERE id = $1", append(options, id)...).Scan(targets...); err != nil {
				t.Fatalf("result formats %v: read %d: %v", f, id, err)
			}
		}
		var (
			m           map[string]any
			raw         json.RawMessage
			jText, tStr string
			d           jdoc
			jNull       *map[string]any
			tNull       any
		)
		q(1, &m, &raw)
		if !reflect.DeepEqual(m, jsonbRead) || string(raw) != jsonDoc {
			t.Errorf("result formats %v: row 1 read back\n  %#v, %s\nwant\n  %#v, %s", f, m, raw, jsonbRead, jsonDoc)
		}
		q(1, &jText, &tStr)
		if jText != jsonbText || tStr != jsonDoc {
			t.Errorf("result formats %v: row 1 as strings\n  %s, %s\nwant\n  %s, %s", f, jText, tStr, jsonbText, jsonDoc)
		}
		q(2, &d, &tStr)
		if !reflect.DeepEqual(d, jdoc{A: 2, B: []int{3}, S: "x"}) || tStr != jsonDoc {
			t.Errorf("result formats %v: row 2 read back %+v, %s", f, d, tStr)
		}
		tNull = "not scanned"
		q(3, &jNull, &tNull)
		if jNull != nil || tNull != nil {
			t.Errorf("result formats %v: row 3 read back %v, %v, want nil (SQL NULL), nil (JSON null)", f, jNull, tNull)
		}
	}
	var nulls string
	if err := conn.QueryRow(ctx, "SELECT (j IS NULL)::text || ' ' || (t IS NULL)::text || ' ' || t::text FROM jdocs WHERE id = 3").Scan(&nulls); err != nil || nulls != "true false null" {
		t.Errorf("row 3: %q, %v, want j SQL NULL and t the JSON null", nulls, err)
	}

	// An operator query with parameters: ->> with a text key, @> with a
	// document.
	const opQuery = "SELECT j ->> $1, j -> 'b', t -> 'a' FROM jdocs WHERE j @> $2::jsonb ORDER BY id"
	rows, err = conn.Query(ctx, opQuery, "s", doc(map[string]any{"b": []int{2}}))
	if err != nil {
		t.Fatal(err)
	}
	if fds := rows.FieldDescriptions(); len(fds) != 3 || fds[0].DataTypeOID != pgtype.TextOID ||
		fds[1].DataTypeOID != pgtype.JSONBOID || fds[2].DataTypeOID != pgtype.JSONOID {
		t.Errorf("row description of %s: %+v, want text, jsonb, json", opQuery, fds)
	}
	type opRow struct {
		S string
		B []int
		A json.RawMessage
	}
	got, err := pgx.CollectRows(rows, pgx.RowToStructByPos[opRow])
	if want := []opRow{{`héllo "w" \ é`, []int{1, 2}, json.RawMessage("2")}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %+v, %v, want %+v", opQuery, got, err, want)
	}
	if mode != pgx.QueryExecModeSimpleProtocol && mode != pgx.QueryExecModeExec {
		sd, err := conn.Prepare(ctx, "jop", opQuery)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(sd.ParamOIDs, []uint32{pgtype.TextOID, pgtype.JSONBOID}) {
			t.Errorf("parameter types of %s: %v, want [text jsonb]", opQuery, sd.ParamOIDs)
		}
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM jdocs WHERE j ? $1 OR t::jsonb @> $2", "num", json.RawMessage(`{"a": 2}`)).Scan(&n); err != nil || n != 2 {
		t.Errorf("j ? $1 OR t::jsonb @> $2: %d rows, %v, want 2", n, err)
	}
}

// testPgxJSONFormats checks json's and jsonb's wire encodings byte for byte:
// jsonb's binary format is the version byte 1 and the text, json's is the
// text.
func testPgxJSONFormats(t *testing.T, conn *pgx.Conn) {
	ctx := t.Context()
	pc := conn.PgConn()
	mustExec(t, conn, createJdocs)
	encoded := map[int16][2]string{
		pgx.TextFormatCode:   {jsonbText, jsonDoc},
		pgx.BinaryFormatCode: {"\x01" + jsonbText, jsonDoc},
	}
	oids := []uint32{pgtype.Int4OID, pgtype.JSONBOID, pgtype.JSONOID}
	// Parameters in text (1), binary (2) and mixed (3, 4); 5 in text and
	// 6 in binary with the types left to the server.
	for _, c := range []struct {
		id      string
		formats []int16
		oids    []uint32
	}{{"1", []int16{0, 0, 0}, oids}, {"2", []int16{0, 1, 1}, oids}, {"3", []int16{0, 1, 0}, oids}, {"4", []int16{0, 0, 1}, oids}, {"5", []int16{0, 0, 0}, nil}, {"6", []int16{0, 1, 1}, nil}} {
		params := [][]byte{[]byte(c.id), []byte(jsonbIn), []byte(jsonDoc)}
		if c.formats[1] == pgx.BinaryFormatCode {
			params[1] = append([]byte{1}, jsonbIn...)
		}
		if _, err := pc.ExecParams(ctx, "INSERT INTO jdocs VALUES ($1, $2, $3)", params, c.oids, c.formats, nil).Close(); err != nil {
			t.Fatalf("insert %s with parameter formats %v: %v", c.id, c.formats, err)
		}
	}
	for _, id := range []string{"1", "2", "3", "4", "5", "6"} {
		for _, resultFormats := range [][]int16{{0, 0}, {1, 1}, {0, 1}, {1, 0}} {
			rr := pc.ExecParams(ctx, "SELECT j, t FROM jdocs WHERE id = $1", [][]byte{[]byte(id)}, nil, nil, resultFormats)
			rows := 0
			for rr.NextRow() {
				rows++
				for i, fd := range rr.FieldDescriptions() {
					got, want := string(rr.Values()[i]), encoded[resultFormats[i]][i]
					if fd.DataTypeOID != oids[i+1] || fd.Format != resultFormats[i] || got != want {
						t.Errorf("row %s, %s (format %d): type %d format %d %q, want type %d %q",
							id, fd.Name, resultFormats[i], fd.DataTypeOID, fd.Format, got, oids[i+1], want)
					}
				}
			}
			if _, err := rr.Close(); err != nil || rows != 1 {
				t.Errorf("select %s: %d rows, %v", id, rows, err)
			}
		}
	}

	// Bad input: an unknown jsonb version, and text that is not JSON in
	// either format. Each fails its statement only.
	for _, c := range []struct {
		what   string
		oid    uint32
		format int16
		value  string
	}{
		{"jsonb version 2", pgtype.JSONBOID, 1, "\x02{}"},
		{"jsonb, no version byte", pgtype.JSONBOID, 1, ""},
		{"jsonb text", pgtype.JSONBOID, 0, "{"},
		{"jsonb binary", pgtype.JSONBOID, 1, "\x01{"},
		{"json text", pgtype.JSONOID, 0, "{"},
		{"json binary", pgtype.JSONOID, 1, "[1,]"},
	} {
		_, err := pc.ExecParams(ctx, "SELECT $1", [][]byte{[]byte(c.value)}, []uint32{c.oid}, []int16{c.format}, nil).Close()
		if err == nil {
			t.Errorf("%s: %q accepted", c.what, c.value)
		} else if code := sqlState(err); c.value != "" && c.value[0] != 2 && code != "22P02" {
			t.Errorf("%s: %v, want SQLSTATE 22P02", c.what, err)
		}
	}
	if err := conn.Ping(ctx); err != nil {
		t.Errorf("after the errors: %v", err)
	}
}
