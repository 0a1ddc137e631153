package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/epochdb/epochdb/sql/types"
	"github.com/jackc/pgx/v5/pgconn"
)

// citext travels the binary protocol as text does (citextsend and
// citextrecv are textsend and textrecv): a binary parameter is read as
// its bytes and a binary result sent as them, under citext's own oid,
// which Describe reports for a parameter compared with a citext column.
func TestCitextBinaryProtocol(t *testing.T) {
	ctx := context.Background()
	conn, err := pgconn.Connect(ctx, serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.Exec(ctx, "CREATE EXTENSION citext; CREATE TABLE w (k citext PRIMARY KEY, n int); INSERT INTO w VALUES ('Alpha', 1)").Close(); err != nil {
		t.Fatal(err)
	}
	const query = "SELECT k, k::text FROM w WHERE k = $1"
	sd, err := conn.Prepare(ctx, "", query, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []uint32{uint32(types.OidCitext)}; fmt.Sprint(sd.ParamOIDs) != fmt.Sprint(want) {
		t.Errorf("parameter types %v, want %v (citext)", sd.ParamOIDs, want)
	}
	if len(sd.Fields) != 2 || sd.Fields[0].DataTypeOID != uint32(types.OidCitext) || sd.Fields[1].DataTypeOID != uint32(types.OidText) {
		t.Errorf("result columns %+v, want citext and text", sd.Fields)
	}
	res := conn.ExecPrepared(ctx, "", [][]byte{[]byte("ALPHA")}, []int16{1}, []int16{1, 1}).Read()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if len(res.Rows) != 1 || string(res.Rows[0][0]) != "Alpha" || string(res.Rows[0][1]) != "Alpha" {
		t.Errorf("binary rows %q, want one of Alpha, Alpha", res.Rows)
	}
	res = conn.ExecParams(ctx, "SELECT $1::citext", [][]byte{[]byte("\xff")}, nil, []int16{1}, nil).Read()
	if sqlstate(res.Err) != "22021" {
		t.Errorf("invalid UTF-8 as a binary citext: %v, want 22021", res.Err)
	}
}

// WHERE c = 'x' on a citext column finds its rows through the column's
// index, whose keys are lower-cased as the comparison is; c = 'x'::text,
// a comparison of text, cannot use it and scans.
func TestCitextIndexLookup(t *testing.T) {
	db := openDB(t,
		"CREATE EXTENSION citext",
		"CREATE TABLE u (id int PRIMARY KEY, email citext UNIQUE, nick citext)",
		"CREATE INDEX u_nick ON u (nick)",
		"INSERT INTO u SELECT g, 'User' || g || '@Example.com', 'Nick' || (g % 10) FROM generate_series(1, 100) g",
	)
	ctx := context.Background()
	for _, c := range []struct{ query, plan string }{
		{"SELECT id FROM u WHERE email = 'user7@example.COM'", "Index Scan using u_email_key on u"},
		{"SELECT id FROM u WHERE nick = 'NICK3'", "Index Scan using u_nick on u"},
		{"SELECT id FROM u WHERE nick > 'nick8'", "Index Scan using u_nick on u"},
		{"SELECT id FROM u WHERE email = 'user7@example.COM'::text", "Seq Scan on u"},
	} {
		rows, err := db.Query(ctx, "EXPLAIN "+c.query)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		var plan []string
		for rows.Next() {
			var line string
			if err := rows.Scan(&line); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, line)
		}
		if got := strings.Join(plan, "\n"); !strings.Contains(got, c.plan) {
			t.Errorf("EXPLAIN %s:\n%s\nwant %q", c.query, got, c.plan)
		}
	}
	for query, want := range map[string]int{
		"SELECT count(*) FROM u WHERE email = 'user7@example.COM'":       1,
		"SELECT count(*) FROM u WHERE nick = 'NICK3'":                    10,
		"SELECT count(*) FROM u WHERE nick > 'nick8'":                    10,
		"SELECT count(*) FROM u WHERE email = 'user7@example.COM'::text": 0,
		"SELECT count(*) FROM u WHERE email = 'User7@Example.com'::text": 1,
	} {
		var n int
		if err := db.SQL().QueryRowContext(ctx, query).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d, %v; want %d", query, n, err, want)
		}
	}
}
