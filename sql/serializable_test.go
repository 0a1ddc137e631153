package sql_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SERIALIZABLE through SQL: write skew between two sessions fails the
// second COMMIT with 40001, as PostgreSQL's SSI fails one of them, and
// what the first committed stands.
func TestSerializableWriteSkewSQL(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE doctors (name text PRIMARY KEY, on_call bool)",
		"INSERT INTO doctors VALUES ('alice', true), ('bob', true)")
	ctx := context.Background()
	for _, conn := range c {
		mustExec(t, conn, "BEGIN ISOLATION LEVEL SERIALIZABLE")
		if n := count(t, conn, "SELECT count(*) FROM doctors WHERE on_call"); n != 2 {
			t.Fatalf("%d on call, want 2", n)
		}
	}
	mustExec(t, c[0], "UPDATE doctors SET on_call = false WHERE name = 'alice'")
	mustExec(t, c[1], "UPDATE doctors SET on_call = false WHERE name = 'bob'")
	mustExec(t, c[0], "COMMIT")
	_, err := c[1].Exec(ctx, "COMMIT")
	if code := sqlstate(err); code != "40001" {
		t.Fatalf("second COMMIT: %v (SQLSTATE %q), want 40001", err, code)
	}
	if n := count(t, c[1], "SELECT count(*) FROM doctors WHERE on_call"); n != 1 {
		t.Fatalf("%d on call after the failed COMMIT, want 1", n)
	}
	var level string
	if err := c[1].QueryRow(ctx, "SHOW transaction_isolation").Scan(&level); err != nil {
		t.Fatal(err)
	}
	mustExec(t, c[1], "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	err = pgx.BeginFunc(ctx, c[1], func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "SHOW transaction_isolation").Scan(&level)
	})
	if err != nil || level != "serializable" {
		t.Fatalf("transaction_isolation = %q, %v; want serializable", level, err)
	}
}

// A SERIALIZABLE transaction's commit check covers the rows it read, not
// the catalog it read them by: DDL elsewhere does not fail it, even when
// it read through a secondary index, which looks at the catalog's
// version.
func TestSerializableIgnoresCatalogReads(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE d (id int PRIMARY KEY, grp int)", "CREATE INDEX d_grp ON d (grp)",
		"INSERT INTO d VALUES (1, 1), (2, 2)", "CREATE TABLE l (n int)")
	ctx := context.Background()
	mustExec(t, c[0], "BEGIN ISOLATION LEVEL SERIALIZABLE")
	if n := count(t, c[0], "SELECT count(*) FROM d WHERE grp = 1"); n != 1 {
		t.Fatalf("%d rows in group 1", n)
	}
	mustExec(t, c[0], "INSERT INTO l VALUES (1)")
	mustExec(t, c[1], "CREATE TABLE zz (a int)")
	if _, err := c[0].Exec(ctx, "COMMIT"); err != nil {
		t.Fatalf("COMMIT after DDL elsewhere: %v", err)
	}
}
