package sql_test

import (
	"context"
	"fmt"
	"testing"
)

// Hash joins give what nested loops give: the same joins, written once
// with a hashable equality and once through numeric (which is not
// hashed), agree on random rows with duplicates and NULLs, for every
// kind of join, and with extra conditions beside the equality.
func TestHashJoinMatchesNestedLoop(t *testing.T) {
	c := lockConns(t, 1,
		"CREATE TABLE hl (id int PRIMARY KEY, k int, s text)",
		"CREATE TABLE hr (id int PRIMARY KEY, k int, s text)",
		"INSERT INTO hl SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 13 END, (g % 5)::text FROM generate_series(1, 300) g",
		"INSERT INTO hr SELECT g, CASE WHEN g % 11 = 0 THEN NULL ELSE g % 17 END, (g % 3)::text FROM generate_series(1, 200) g")
	for _, kind := range []string{"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"} {
		for _, extra := range []string{"", " AND l.s = r.s", " AND l.id < r.id"} {
			hashed := fmt.Sprintf("SELECT count(*), sum(coalesce(l.id, 0) * 1000 + coalesce(r.id, 0)) FROM hl l %s hr r ON l.k = r.k%s", kind, extra)
			looped := fmt.Sprintf("SELECT count(*), sum(coalesce(l.id, 0) * 1000 + coalesce(r.id, 0)) FROM hl l %s hr r ON l.k::numeric = r.k::numeric%s", kind, extra)
			var n1, n2 int
			var s1, s2 *int64
			if err := c[0].QueryRow(t.Context(), hashed).Scan(&n1, &s1); err != nil {
				t.Fatalf("%s: %v", hashed, err)
			}
			if err := c[0].QueryRow(t.Context(), looped).Scan(&n2, &s2); err != nil {
				t.Fatalf("%s: %v", looped, err)
			}
			if n1 != n2 || (s1 == nil) != (s2 == nil) || s1 != nil && *s1 != *s2 {
				t.Errorf("%s%s: hash join gives %d rows, nested loop %d", kind, extra, n1, n2)
			}
		}
	}
	// The same through WHERE, which the planner pushes into the join.
	if a, b := count(t, c[0], "SELECT count(*) FROM hl l, hr r WHERE l.k = r.k AND l.s = r.s"),
		count(t, c[0], "SELECT count(*) FROM hl l, hr r WHERE l.k::numeric = r.k::numeric AND l.s = r.s"); a != b || a == 0 {
		t.Errorf("comma join: hashed %d, looped %d", a, b)
	}
}

// A hash join whose probes find nothing still notices statement_timeout:
// with no pair to check, only the per-row check stops it.
func TestHashJoinCancels(t *testing.T) {
	c := lockConns(t, 1, "SET statement_timeout = '50ms'")
	_, err := c[0].Exec(context.Background(),
		"SELECT count(*) FROM generate_series(1, 3000000) a JOIN generate_series(1, 10) b ON a = b + 100000000")
	if sqlstate(err) != "57014" {
		t.Fatalf("err = %v, want 57014", err)
	}
}
