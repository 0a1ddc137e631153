package sql_test

import (
	"context"
	"testing"
)

// An uncorrelated subquery, and a WITH query, is computed once per
// execution and not once per plan: a prepared statement run again with
// another parameter, or after the data changed, sees the new answer.
func TestSubqueriesCachedPerExecution(t *testing.T) {
	db := openDB(t,
		"CREATE TABLE t (id int PRIMARY KEY, v int)",
		"INSERT INTO t VALUES (1, 10), (2, 20), (3, 30)",
	)
	ctx := context.Background()
	for _, query := range []string{
		"SELECT count(*) FROM t WHERE v > (SELECT v FROM t WHERE id = $1)",
		"SELECT count(*) FROM t WHERE v > ALL (SELECT v FROM t WHERE id <= $1)",
		"WITH m AS (SELECT v FROM t WHERE id = $1) SELECT count(*) FROM t, m WHERE t.v > m.v",
	} {
		stmt, err := db.SQL().PrepareContext(ctx, query)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		check := func(id, want int) {
			t.Helper()
			var n int
			if err := stmt.QueryRowContext(ctx, id).Scan(&n); err != nil {
				t.Fatalf("%s with $1 = %d: %v", query, id, err)
			}
			if n != want {
				t.Errorf("%s with $1 = %d: %d rows, want %d", query, id, n, want)
			}
		}
		check(1, 2)
		check(2, 1)
		if _, err := db.Exec(ctx, "UPDATE t SET v = v + 100 WHERE id = 3"); err != nil {
			t.Fatal(err)
		}
		check(3, 0)
		check(2, 1)
		if _, err := db.Exec(ctx, "UPDATE t SET v = v - 100 WHERE id = 3"); err != nil {
			t.Fatal(err)
		}
		stmt.Close()
	}
}
