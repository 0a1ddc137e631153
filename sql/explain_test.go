package sql_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/epochdb/epochdb"
)

// Point lookups and range scans by primary key, unique constraints and
// CREATE INDEX indexes use the index, not a full scan, and EXPLAIN says
// which. It also shows
// subqueries, WITH queries and set operations.
func TestExplainShowsIndexUse(t *testing.T) {
	db := openDB(t,
		"CREATE TABLE acct (branch int, id int, email text UNIQUE, balance int, PRIMARY KEY (branch, id))",
		"INSERT INTO acct VALUES (1, 1, 'a@x', 10), (1, 2, 'b@x', 20), (2, 1, 'c@x', 30)",
		"CREATE INDEX acct_balance ON acct (balance)",
		"CREATE TABLE ev (kind text, at int, note text)",
		"CREATE INDEX ev_kind_at ON ev (kind, at)",
		"CREATE UNIQUE INDEX acct_email_ci ON acct (lower(email))",
		"CREATE INDEX ev_live ON ev (at) WHERE note IS NULL AND kind = 'live'",
	)
	ctx := context.Background()
	cases := []struct{ query, want string }{
		{"SELECT * FROM acct WHERE branch = 1 AND id = 2", "Index Scan using acct_pkey on acct"},
		{"SELECT * FROM acct WHERE branch = $1 AND id = $2", "Index Scan using acct_pkey on acct"},
		{"SELECT * FROM acct WHERE branch = 1", "Index Scan using acct_pkey on acct"},
		{"SELECT * FROM acct WHERE branch BETWEEN 1 AND 2", "Index Cond: ((branch >= 1) AND (branch <= 2))"},
		{"SELECT * FROM acct WHERE branch = 1 AND id > 1", "Index Cond: ((branch = 1) AND (id > 1))"},
		{"SELECT * FROM acct WHERE email = 'c@x'", "Index Scan using acct_email_key on acct"},
		{"UPDATE acct SET balance = 0 WHERE branch = 2 AND id = 1", "Index Scan using acct_pkey on acct"},
		{"DELETE FROM acct WHERE email = 'a@x'", "Index Scan using acct_email_key on acct"},
		{"SELECT * FROM acct WHERE balance = 10", "Index Scan using acct_balance on acct\n  Index Cond: (balance = 10)"},
		{"SELECT * FROM acct WHERE balance > 10", "Index Scan using acct_balance on acct\n  Index Cond: (balance > 10)"},
		{"UPDATE acct SET email = NULL WHERE balance <= 10", "Index Scan using acct_balance on acct"},
		{"SELECT * FROM acct WHERE balance + 1 = 10", "Seq Scan on acct"},
		{"SELECT * FROM ev WHERE kind = 'x'", "Index Scan using ev_kind_at on ev\n  Index Cond: (kind = 'x'::text)"},
		{"SELECT * FROM ev WHERE kind = 'x' AND at < 5", "Index Cond: ((kind = 'x'::text) AND (at < 5))"},
		{"SELECT * FROM ev WHERE kind = 'x' AND at = 5", "Index Cond: ((kind = 'x'::text) AND (at = 5))"},
		{"SELECT * FROM ev WHERE at = 5", "Seq Scan on ev"},
		// An index on an expression serves the same expression, however
		// the query qualifies its columns.
		{"SELECT * FROM acct WHERE lower(email) = 'a@x'", "Index Scan using acct_email_ci on acct\n  Index Cond: (lower = 'a@x'::text)"},
		{"SELECT * FROM acct a WHERE lower(a.email) = 'b@x'", "Index Scan using acct_email_ci on acct"},
		{"UPDATE acct SET balance = 1 WHERE lower(email) > 'b'", "Index Scan using acct_email_ci on acct"},
		{"SELECT * FROM acct WHERE upper(email) = 'A@X'", "Seq Scan on acct"},
		// A partial index serves a query whose WHERE clause implies its
		// predicate, conjunct by conjunct, and no other.
		{"SELECT * FROM ev WHERE kind = 'live' AND at > 3 AND note IS NULL", "Index Scan using ev_live on ev\n  Index Cond: (at > 3)"},
		{"UPDATE ev SET note = 'x' WHERE note IS NULL AND at > 1 AND kind = 'live'", "Index Scan using ev_live on ev"},
		{"SELECT * FROM ev WHERE at = 3 AND note IS NULL", "Seq Scan on ev"},
		{"SELECT * FROM ev WHERE at = 3 AND note IS NULL AND kind = 'dead'", "Index Scan using ev_kind_at on ev"},
		// A correlated subquery reads the enclosing row's values as
		// constants, so they can drive an index.
		{"SELECT * FROM acct a WHERE EXISTS (SELECT 1 FROM acct b WHERE b.branch = a.branch AND b.id = a.id + 1)", "SubPlan 1\n    ->  Index Scan using acct_pkey on acct b"},
		{"SELECT * FROM acct WHERE balance > (SELECT avg(balance) FROM acct)", "InitPlan"},
		{"WITH x AS (SELECT * FROM acct) SELECT * FROM x", "CTE Scan on x"},
		{"SELECT * FROM (SELECT branch, count(*) FROM acct GROUP BY branch) s", "Subquery Scan on s"},
		{"SELECT id FROM acct UNION SELECT branch FROM acct", "HashAggregate\n  ->  Append\n        ->  Seq Scan on acct"},
	}
	for _, c := range cases {
		var qp []string
		args := []any{}
		if strings.Contains(c.query, "$1") {
			args = append(args, 1, 2)
		}
		qp = explainLines(t, db, "EXPLAIN (COSTS OFF) "+c.query, args...)
		if got := strings.Join(qp, "\n"); !strings.Contains(got, c.want) {
			t.Errorf("EXPLAIN %s:\n%s\nwant it to mention %q", c.query, got, c.want)
		}
	}
	// And the answers through those paths are right.
	var n, sum int
	if err := db.SQL().QueryRowContext(ctx, "SELECT count(*), coalesce(sum(balance), 0) FROM acct WHERE branch = 1 AND id >= 1").Scan(&n, &sum); err != nil || n != 2 || sum != 30 {
		t.Fatalf("range scan: %d rows, sum %d, %v", n, sum, err)
	}
}

// TestExplainJoinMethods: with statistics, the planner picks each join
// method where it is cheapest: a merge join of two scans in key order, a
// hash join hashing the smaller side, an index nested loop from a few
// outer rows, and the join order that starts from the filtered table.
func TestExplainJoinMethods(t *testing.T) {
	db := openDB(t,
		"CREATE TABLE ord (id int PRIMARY KEY, cust int NOT NULL, day int NOT NULL)",
		"CREATE TABLE line (ord int, n int, qty int, PRIMARY KEY (ord, n))",
		"CREATE TABLE cust (id int PRIMARY KEY, region text NOT NULL)",
		"INSERT INTO cust SELECT g, 'r' || (g % 5) FROM generate_series(1, 100) g",
		"INSERT INTO ord SELECT g, g % 100 + 1, g % 365 FROM generate_series(1, 5000) g",
		"INSERT INTO line SELECT g / 4 + 1, g % 4, g % 10 FROM generate_series(0, 19999) g",
		"ANALYZE",
	)
	for _, c := range []struct{ query, want string }{
		{"SELECT count(*) FROM ord o JOIN line l ON l.ord = o.id", "->  Merge Join\n        Merge Cond: (o.id = l.ord)\n        ->  Seq Scan on ord o\n        ->  Seq Scan on line l"},
		{"SELECT count(*) FROM cust c JOIN ord o ON o.cust = c.id", "->  Hash Join\n        Hash Cond: (o.cust = c.id)\n        ->  Seq Scan on ord o\n        ->  Hash\n              ->  Seq Scan on cust c"},
		{"SELECT * FROM ord o JOIN cust c ON c.id = o.cust WHERE o.id = 7", "Nested Loop\n  ->  Index Scan using ord_pkey on ord o\n        Index Cond: (id = 7)"},
		{"SELECT * FROM line l, ord o WHERE l.ord = o.id AND o.id IN (3, 4)", "Nested Loop\n  ->  Index Scan using ord_pkey on ord o"},
	} {
		if got := strings.Join(explainLines(t, db, "EXPLAIN (COSTS OFF) "+c.query), "\n"); !strings.Contains(got, c.want) {
			t.Errorf("EXPLAIN %s:\n%s\nwant it to contain\n%s", c.query, got, c.want)
		}
	}
}

// TestExplainAnalyzeCountsEveryNode: under EXPLAIN ANALYZE every node
// of a plan that runs has its counts, and the root's rows are the
// query's.
func TestExplainAnalyzeCountsEveryNode(t *testing.T) {
	db := openDB(t,
		"CREATE TABLE a (id int PRIMARY KEY, g int, v text)",
		"INSERT INTO a SELECT i, i % 5, 'v' || i FROM generate_series(1, 200) i",
		"ANALYZE a",
	)
	ctx := context.Background()
	for _, q := range []string{
		"SELECT g, count(*) FROM a WHERE id > 10 GROUP BY g HAVING count(*) > 1 ORDER BY g DESC LIMIT 3",
		"SELECT id FROM a WHERE g = 1 UNION SELECT id + 1 FROM a WHERE g = 2 ORDER BY 1 LIMIT 4",
		"SELECT DISTINCT g FROM a ORDER BY g",
		"SELECT x.id, y.v FROM a x JOIN a y ON y.id = x.g WHERE x.id < 20",
		"WITH w AS MATERIALIZED (SELECT * FROM a WHERE g = 3) SELECT count(*) FROM w",
		"SELECT id, row_number() OVER (ORDER BY id) FROM a WHERE id IN (3, 4, 5)",
		"SELECT * FROM a WHERE id > (SELECT avg(id) FROM a) LIMIT 2",
	} {
		want := 0
		counted, err := db.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for counted.Next() {
			want++
		}
		lines := explainLines(t, db, "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) "+q)
		plan := strings.Join(lines, "\n")
		for i, l := range lines {
			node := i == 0 || strings.Contains(l, "->  ")
			if node && !strings.Contains(l, "(actual rows=") {
				t.Errorf("%s: node without counts: %q\n%s", q, l, plan)
			}
		}
		if root := fmt.Sprintf("(actual rows=%d loops=1)", want); !strings.HasSuffix(lines[0], root) {
			t.Errorf("%s: root %q, want it to end %s\n%s", q, lines[0], root, plan)
		}
	}
}

// explainLines runs an EXPLAIN and returns its lines.
func explainLines(t *testing.T, db *epochdb.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
	}
	return lines
}
