package sql_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Sessions that each move the oldest queued row to done with one
// statement, DELETE in WITH feeding INSERT, never lose or duplicate a
// row: a DELETE that finds its row taken by a concurrent one deletes, and
// so inserts, nothing; under REPEATABLE READ it fails with 40001 instead,
// and is tried again.
func TestDMLCTEConcurrentQueue(t *testing.T) {
	for _, iso := range []string{"READ COMMITTED", "REPEATABLE READ"} {
		t.Run(iso, func(t *testing.T) {
			const sessions, rows = 4, 120
			c := lockConns(t, sessions,
				"CREATE TABLE q (id int PRIMARY KEY, payload text)",
				"CREATE TABLE done (id int PRIMARY KEY, payload text)",
				fmt.Sprintf("INSERT INTO q SELECT g, 'p' || g FROM generate_series(1, %d) g", rows))
			ctx := context.Background()
			var wg sync.WaitGroup
			errs := make(chan error, sessions)
			moved := make([]int64, sessions)
			for s := range sessions {
				wg.Go(func() {
					mustExec(t, c[s], "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+iso)
					for {
						tag, err := c[s].Exec(ctx, "WITH d AS (DELETE FROM q WHERE id = (SELECT min(id) FROM q) RETURNING *) INSERT INTO done SELECT * FROM d")
						var pe *pgconn.PgError
						if errors.As(err, &pe) && pe.Code == "40001" {
							continue
						}
						if err != nil {
							errs <- err
							return
						}
						moved[s] += tag.RowsAffected()
						var left int
						if err := c[s].QueryRow(ctx, "SELECT count(*) FROM q").Scan(&left); err != nil {
							errs <- err
							return
						}
						if left == 0 {
							return
						}
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			var total int64
			for _, n := range moved {
				total += n
			}
			if total != rows {
				t.Errorf("the statements reported %d rows moved, want %d", total, rows)
			}
			var n, distinct, lo, hi int
			err := c[0].QueryRow(ctx, "SELECT count(*), count(DISTINCT id), min(id), max(id) FROM done").Scan(&n, &distinct, &lo, &hi)
			if err != nil {
				t.Fatal(err)
			}
			if n != rows || distinct != rows || lo != 1 || hi != rows {
				t.Fatalf("done holds %d rows, %d distinct, ids %d..%d; want ids 1..%d once each", n, distinct, lo, hi, rows)
			}
			if n := count(t, c[0], "SELECT count(*) FROM q"); n != 0 {
				t.Fatalf("%d rows left in q", n)
			}
		})
	}
}

// A data-modifying WITH query holds the row locks its statement would
// alone: a concurrent UPDATE of the row waits for the transaction, then
// sees its change.
func TestDMLCTERowLocks(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE a (id int PRIMARY KEY, v int)", "INSERT INTO a VALUES (1, 0), (2, 0)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "WITH u AS (UPDATE a SET v = v + 1 WHERE id = 1 RETURNING *) SELECT count(*) FROM u")
	done := blocked(t, c[1], "UPDATE a SET v = v + 10 WHERE id = 1")
	mustExec(t, c[0], "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, c[0], "SELECT v FROM a WHERE id = 1"); n != 11 {
		t.Fatalf("v = %d, want 11", n)
	}
	// A SELECT whose WITH deletes waits, like the DELETE, for a writer.
	mustExec(t, c[1], "BEGIN")
	mustExec(t, c[1], "UPDATE a SET v = 5 WHERE id = 2")
	wait := blockedOn(t, "WITH d", func() error {
		_, err := c[0].Exec(context.Background(), "WITH d AS (DELETE FROM a WHERE id = 2 RETURNING *) SELECT * FROM d")
		return err
	})
	mustExec(t, c[1], "COMMIT")
	if err := <-wait; err != nil {
		t.Fatal(err)
	}
	if n := count(t, c[0], "SELECT count(*) FROM a"); n != 1 {
		t.Fatalf("%d rows left, want 1", n)
	}
}

// Over the extended protocol, a statement with data-modifying WITH
// queries takes parameters in every part, reports the main query's
// columns, and runs once per execution.
func TestDMLCTEExtendedProtocol(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE e (id serial PRIMARY KEY, v int)", "CREATE TABLE log (id int, note text)")[0]
	ctx := context.Background()
	const q = "WITH i AS (INSERT INTO e (v) VALUES ($1), ($2) RETURNING id, v), l AS (INSERT INTO log SELECT id, $3 FROM i) SELECT id, v * $4 AS scaled FROM i ORDER BY id"
	for round := range 2 {
		rows, err := c.Query(ctx, q, 10, 20, "note", 3)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range rows.FieldDescriptions() {
			names = append(names, f.Name)
		}
		var got []string
		for rows.Next() {
			var id, scaled int
			if err := rows.Scan(&id, &scaled); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d:%d", id, scaled))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("[%d:30 %d:60]", 2*round+1, 2*round+2)
		if fmt.Sprint(names) != "[id scaled]" || fmt.Sprint(got) != want {
			t.Fatalf("round %d: columns %v rows %v, want [id scaled] %s", round, names, got, want)
		}
	}
	if n := count(t, c, "SELECT count(*) FROM log WHERE note = 'note'"); n != 4 {
		t.Fatalf("log has %d rows, want 4", n)
	}
	// Reading only the first row still runs everything.
	var id int
	if err := c.QueryRow(ctx, "WITH d AS (DELETE FROM e WHERE v = $1 RETURNING id) SELECT id FROM d ORDER BY id", 10).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if n := count(t, c, "SELECT count(*) FROM e WHERE v = 10"); n != 0 || id != 1 {
		t.Fatalf("first id %d and %d rows left, want 1 and 0", id, n)
	}
	// A failure after the WITH queries ran leaves nothing behind.
	_, err := c.Exec(ctx, "WITH d AS (DELETE FROM e RETURNING *) INSERT INTO log SELECT id, (1 / (v - $1))::text FROM d", 20)
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22012" {
		t.Fatalf("got %v, want division by zero", err)
	}
	if n := count(t, c, "SELECT count(*) FROM e"); n != 2 {
		t.Fatalf("e has %d rows after the failed statement, want 2", n)
	}
	var tag pgconn.CommandTag
	if tag, err = c.Exec(ctx, "WITH d AS (DELETE FROM e WHERE id = $1 RETURNING *) UPDATE log SET note = 'gone' WHERE id IN (SELECT id FROM d)", 2); err != nil {
		t.Fatal(err)
	}
	if tag.String() != "UPDATE 1" {
		t.Fatalf("tag %q, want UPDATE 1", tag)
	}
}

// An upsert whose SET reads a data-modifying WITH query that writes the
// very row the upsert updates once waited forever on its own row lock,
// past statement_timeout. It now ends at once, as PostgreSQL's does: the
// WITH query's write stands and the upsert leaves the row alone. A
// function that updates the row its UPDATE is updating fails (27000)
// instead of waiting on itself.
func TestUpsertSetWritesItsOwnRow(t *testing.T) {
	c := lockConns(t, 1,
		"CREATE TABLE withz AS SELECT i AS k, (i || ' v')::text v FROM generate_series(0, 16) i",
		"ALTER TABLE withz ADD UNIQUE (k)",
		"SET statement_timeout = '1s'")[0]
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	rows, err := c.Query(ctx, `WITH simpletup AS (SELECT 2 k, 'Green' v),
		upsert_cte AS (INSERT INTO withz VALUES (2, 'Blue') ON CONFLICT (k) DO UPDATE SET (k, v) = (SELECT k, v FROM simpletup WHERE simpletup.k = withz.k) RETURNING k, v)
		INSERT INTO withz VALUES (2, 'Red') ON CONFLICT (k) DO UPDATE SET (k, v) = (SELECT k, v FROM upsert_cte WHERE upsert_cte.k = withz.k) RETURNING k, v`)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if n != 0 || rows.CommandTag().String() != "INSERT 0 0" {
		t.Fatalf("%d rows, tag %q; want none, INSERT 0 0", n, rows.CommandTag())
	}
	if d := time.Since(start); d > 900*time.Millisecond {
		t.Fatalf("took %v, beyond statement_timeout's 1s reach", d)
	}
	var v string
	if err := c.QueryRow(ctx, "SELECT v FROM withz WHERE k = 2").Scan(&v); err != nil || v != "Green" {
		t.Fatalf("row 2 is %q (%v), want Green: the WITH query's write", v, err)
	}

	mustExec(t, c, "CREATE TABLE fw (id int PRIMARY KEY, v int)")
	mustExec(t, c, "INSERT INTO fw VALUES (1, 1), (2, 2)")
	mustExec(t, c, "CREATE FUNCTION bump(i int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE fw SET v = v + 100 WHERE id = i; RETURN 7; END $$")
	for _, q := range []string{
		"UPDATE fw SET v = bump(id) WHERE id = 1",
		"INSERT INTO fw VALUES (2, 0) ON CONFLICT (id) DO UPDATE SET v = bump(fw.id)",
	} {
		_, err := c.Exec(ctx, q)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "27000" {
			t.Errorf("%s: %v, want 27000", q, err)
		}
	}
	var sum int
	if err := c.QueryRow(ctx, "SELECT sum(v) FROM fw").Scan(&sum); err != nil || sum != 3 {
		t.Fatalf("sum(v) = %d (%v), want 3: the failed statements wrote nothing", sum, err)
	}
}
