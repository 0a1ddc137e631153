package sql_test

import (
	"context"
	"testing"
)

// A view keeps its query's text, so renaming what it reads is refused
// rather than leaving a view that no longer plans; PostgreSQL, which keeps
// views parsed, follows the rename instead.
func TestRenameUnderViewRefused(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE base (a int, b int)", "CREATE VIEW v AS SELECT a FROM base")
	for _, q := range []string{
		"ALTER TABLE base RENAME TO base2",
		"ALTER TABLE base RENAME COLUMN a TO a2",
	} {
		if _, err := c[0].Exec(context.Background(), q); sqlstate(err) != "0A000" {
			t.Errorf("%s: %v, want 0A000", q, err)
		}
	}
	mustExec(t, c[0], "ALTER TABLE base RENAME COLUMN b TO b2") // the view does not read b
	if n := count(t, c[0], "SELECT count(*) FROM v"); n != 0 {
		t.Fatalf("count = %d", n)
	}
}
