package sql_test

import (
	"context"
	"testing"
)

// A statement reads the data as it was when the statement began: its own
// writes are invisible to it, as PostgreSQL's command ids arrange.
func TestStatementReadsItsStartingState(t *testing.T) {
	db := openDB(t,
		"CREATE TABLE t (id int PRIMARY KEY, x int)",
		"INSERT INTO t VALUES (1, 10), (2, 10), (3, 10), (4, 1)",
		// Each new x is the sum of the old x of smaller ids, plus one.
		"UPDATE t SET x = coalesce((SELECT sum(x) FROM t t2 WHERE t2.id < t.id), 0) + 1",
		// The SELECT does not see the rows the INSERT adds: no runaway.
		"INSERT INTO t SELECT id + 10, x FROM t",
	)
	ctx := context.Background()
	rows, err := db.Query(ctx, "SELECT id, x FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{1, 1}, {2, 11}, {3, 21}, {4, 31}, {11, 1}, {12, 11}, {13, 21}, {14, 31}}
	var got [][2]int
	for rows.Next() {
		var r [2]int
		if err := rows.Scan(&r[0], &r[1]); err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}
