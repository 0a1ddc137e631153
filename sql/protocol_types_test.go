package sql_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Describe reports parameter types inferred as PostgreSQL infers them:
// never unknown (705), and 42P18 when a type cannot be determined.
func TestDescribeParameterTypes(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, serve(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE TABLE acc (aid int4 PRIMARY KEY, bal numeric(12,2), name text, ts timestamptz)"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sql  string
		want []uint32
	}{
		{"SELECT * FROM acc WHERE aid = $1", []uint32{23}},
		{"SELECT * FROM acc LIMIT $1", []uint32{20}},
		{"SELECT * FROM acc LIMIT $1 OFFSET $2", []uint32{20, 20}},
		{"INSERT INTO acc (aid, bal) VALUES ($1, $2)", []uint32{23, 1700}},
		{"UPDATE acc SET bal = bal + $1 WHERE aid = $2", []uint32{1700, 23}},
		{"SELECT $1::int8, $2::text", []uint32{20, 25}},
		{"SELECT * FROM acc WHERE ts > $1 AND name LIKE $2", []uint32{1184, 25}},
		{"SELECT $1", []uint32{25}},
	}
	for _, c := range cases {
		sd, err := conn.Prepare(ctx, "", c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		if fmt.Sprint(sd.ParamOIDs) != fmt.Sprint(c.want) {
			t.Errorf("%s: parameter types %v, want %v", c.sql, sd.ParamOIDs, c.want)
		}
	}
	if _, err := conn.Prepare(ctx, "", "SELECT $1 IS NULL"); sqlstate(err) != "42P18" {
		t.Errorf("an undeterminable parameter: %v, want 42P18", err)
	}
}

// The storage layer's conflicts reach clients with their SQLSTATEs:
// 40001 for a REPEATABLE READ write conflict, 40P01 for a deadlock.
func TestConflictSQLStates(t *testing.T) {
	ctx := context.Background()
	url := serve(t)
	connect := func() *pgx.Conn {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(ctx) })
		return c
	}
	a, b := connect(), connect()
	if _, err := a.Exec(ctx, "CREATE TABLE k (id int PRIMARY KEY, v int); INSERT INTO k VALUES (1, 0), (2, 0)"); err != nil {
		t.Fatal(err)
	}

	// 40001: a REPEATABLE READ transaction updates a row that a concurrent
	// transaction changed after its snapshot.
	if _, err := a.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, "SELECT * FROM k"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Exec(ctx, "UPDATE k SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Exec(ctx, "UPDATE k SET v = 2 WHERE id = 1"); sqlstate(err) != "40001" {
		t.Fatalf("REPEATABLE READ conflict: %v, want 40001", err)
	}
	if _, err := a.Exec(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}

	// 40P01: two transactions each wait for a row the other holds.
	for _, c := range []*pgx.Conn{a, b} {
		if _, err := c.Exec(ctx, "BEGIN"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := a.Exec(ctx, "UPDATE k SET v = 10 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Exec(ctx, "UPDATE k SET v = 20 WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	// Each waits for the other: exactly one fails with 40P01, at once, and
	// its transaction ends with the error, as in PostgreSQL, so the other's
	// update goes through without waiting for its ROLLBACK.
	type result struct {
		conn *pgx.Conn
		err  error
	}
	results := make(chan result, 2)
	go func() {
		_, err := a.Exec(ctx, "UPDATE k SET v = 11 WHERE id = 2")
		results <- result{a, err}
	}()
	time.Sleep(50 * time.Millisecond)
	go func() {
		_, err := b.Exec(ctx, "UPDATE k SET v = 21 WHERE id = 1")
		results <- result{b, err}
	}()
	var victim, survivor *result
	for range 2 {
		select {
		case r := <-results:
			if sqlstate(r.err) == "40P01" && victim == nil {
				victim = &r
			} else {
				survivor = &r
			}
		case <-time.After(2 * time.Second):
			t.Fatal("no deadlock detected within 2 s")
		}
	}
	if victim == nil || survivor == nil || survivor.err != nil {
		t.Fatalf("want one 40P01 and one success; got victim %v, survivor %v", victim, survivor)
	}
	for _, c := range []*pgx.Conn{victim.conn, survivor.conn} {
		if _, err := c.Exec(ctx, "ROLLBACK"); err != nil {
			t.Fatal(err)
		}
	}
}
