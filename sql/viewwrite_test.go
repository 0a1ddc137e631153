package sql_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestCopyIntoView checks that COPY into a view hands each row to its
// INSTEAD OF INSERT trigger, counts only the rows the trigger took, and
// without such a trigger fails as PostgreSQL does.
func TestCopyIntoView(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range []string{
		`CREATE TABLE cv_t (id int PRIMARY KEY, v text)`,
		`CREATE VIEW cv_v AS SELECT DISTINCT id, v FROM cv_t`,
		`CREATE FUNCTION cv_f() RETURNS trigger LANGUAGE plpgsql AS $$
		 BEGIN
		   IF NEW.id < 0 THEN RETURN NULL; END IF;
		   INSERT INTO cv_t VALUES (NEW.id, upper(NEW.v));
		   RETURN NEW;
		 END $$`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	rows := [][]any{{int32(1), "a"}, {int32(-1), "skipped"}, {int32(2), "b"}}
	if _, err := conn.CopyFrom(ctx, pgx.Identifier{"cv_v"}, []string{"id", "v"}, pgx.CopyFromRows(rows)); sqlstate(err) != "42809" {
		t.Fatalf("COPY into a view without a trigger: %v, want 42809", err)
	}
	if _, err := conn.Exec(ctx, `CREATE TRIGGER cv_ins INSTEAD OF INSERT ON cv_v FOR EACH ROW EXECUTE FUNCTION cv_f()`); err != nil {
		t.Fatal(err)
	}
	n, err := conn.CopyFrom(ctx, pgx.Identifier{"cv_v"}, []string{"id", "v"}, pgx.CopyFromRows(rows))
	if err != nil || n != 2 {
		t.Fatalf("COPY into the view: %d rows, %v; want 2", n, err)
	}
	var got string
	if err := conn.QueryRow(ctx, `SELECT string_agg(id || v, ',' ORDER BY id) FROM cv_t`).Scan(&got); err != nil || got != "1A,2B" {
		t.Fatalf("the table holds %q (%v), want 1A,2B", got, err)
	}
}
