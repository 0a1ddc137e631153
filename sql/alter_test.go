package sql_test

import (
	"context"
	"testing"
)

// A view keeps its query's text. Renaming a table it reads rewrites the
// text to follow, as PostgreSQL, which keeps views parsed, follows it;
// where the text names the table in a way a rewrite of its words cannot
// tell apart (here, as an alias of another table), and for a column the
// view reads, the rename is refused rather than leaving a view that no
// longer plans.
func TestRenameUnderView(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE base (a int, b int)", "CREATE TABLE other (a int)",
		"INSERT INTO base VALUES (1, 2)", "CREATE VIEW v AS SELECT base.a FROM base",
		"CREATE VIEW w AS SELECT base2.a FROM other AS base2")
	mustExec(t, c[0], "ALTER TABLE base RENAME TO base3")
	if n := count(t, c[0], "SELECT count(*) FROM v"); n != 1 {
		t.Fatalf("after the rename the view reads %d rows, want 1", n)
	}
	if _, err := c[0].Exec(context.Background(), "ALTER TABLE base3 RENAME COLUMN a TO a2"); sqlstate(err) != "0A000" {
		t.Errorf("renaming a column the view reads: %v, want 0A000", err)
	}
	mustExec(t, c[0], "ALTER TABLE other RENAME TO other2") // w reads other under an alias: the rewrite keeps it
	if n := count(t, c[0], "SELECT count(*) FROM w"); n != 0 {
		t.Fatalf("count = %d", n)
	}
	mustExec(t, c[0], "CREATE TABLE base2 (a int)")
	mustExec(t, c[0], "CREATE VIEW u AS SELECT base2.a FROM base2, other2 AS x")
	if _, err := c[0].Exec(context.Background(), "ALTER TABLE other2 RENAME TO base2x"); err != nil {
		t.Fatalf("renaming a table read under an alias: %v", err)
	}
	// u names base2 as a table, and w names base2 as an alias: renaming
	// base2 cannot rewrite w, so it is refused.
	mustExec(t, c[0], "CREATE VIEW z AS SELECT base2.a FROM base2x AS base2, base2 AS y")
	if _, err := c[0].Exec(context.Background(), "ALTER TABLE base2 RENAME TO base5"); sqlstate(err) != "0A000" {
		t.Errorf("renaming a table another view uses as an alias: %v, want 0A000", err)
	}
	mustExec(t, c[0], "ALTER TABLE base3 RENAME COLUMN b TO b2") // the view does not read b
}
