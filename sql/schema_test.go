package sql

import (
	"context"
	"testing"
)

// A prepared statement is planned again when search_path changes, as
// PostgreSQL's plan cache does: its names may now resolve to other
// objects.
func TestPreparedFollowsSearchPath(t *testing.T) {
	ctx := context.Background()
	_, s := newTestSession(t)
	for _, q := range []string{
		`CREATE SCHEMA a`, `CREATE SCHEMA b`,
		`CREATE TABLE a.t (v text)`, `CREATE TABLE b.t (v text)`,
		`INSERT INTO a.t VALUES ('from a')`, `INSERT INTO b.t VALUES ('from b')`,
		`SET search_path = a`,
	} {
		if _, err := run(ctx, s, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	p, err := s.Prepare(ctx, "SELECT v FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	read := func() any {
		t.Helper()
		pt, err := s.Bind(ctx, p, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got any
		if _, _, err := s.Execute(ctx, pt, 0, func(r []any) error { got = r[0]; return nil }); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := read(); got != "from a" {
		t.Fatalf("with search_path a: %v", got)
	}
	if _, err := run(ctx, s, `SET search_path = b, a`); err != nil {
		t.Fatal(err)
	}
	if got := read(); got != "from b" {
		t.Errorf("after SET search_path = b, a, the prepared statement read %v, want from b", got)
	}
}
