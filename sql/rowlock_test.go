package sql_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
)

// SELECT ... FOR UPDATE then UPDATE, from many sessions at once, loses no
// update: each read-modify-write holds the row from its read on.
func TestSelectForUpdateLosesNoUpdate(t *testing.T) {
	const workers, each = 4, 25
	c := lockConns(t, workers, "CREATE TABLE counter (id int PRIMARY KEY, n int)", "INSERT INTO counter VALUES (1, 0)")
	ctx := context.Background()
	var wg sync.WaitGroup
	for _, conn := range c {
		wg.Go(func() {
			for range each {
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					var n int
					if err := tx.QueryRow(ctx, "SELECT n FROM counter WHERE id = 1 FOR UPDATE").Scan(&n); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "UPDATE counter SET n = $1 WHERE id = 1", n+1)
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := count(t, c[0], "SELECT n FROM counter"); n != workers*each {
		t.Fatalf("counter = %d after %d locked increments", n, workers*each)
	}
}

// A job queue on FOR UPDATE SKIP LOCKED hands every job to exactly one
// worker, and a worker's LIMIT 1 locks one job, not all that match.
func TestSkipLockedQueue(t *testing.T) {
	const jobs, workers = 40, 4
	c := lockConns(t, workers, "CREATE TABLE jobs (id int PRIMARY KEY, done_by int)",
		fmt.Sprintf("INSERT INTO jobs SELECT g, NULL FROM generate_series(1, %d) g", jobs))
	ctx := context.Background()
	const next = "SELECT id FROM jobs WHERE done_by IS NULL ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED"

	// Two open transactions take the first two jobs.
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[1], "BEGIN")
	if a, b := count(t, c[0], next), count(t, c[1], next); a != 1 || b != 2 {
		t.Fatalf("two workers took jobs %d and %d, want 1 and 2", a, b)
	}
	mustExec(t, c[0], "ROLLBACK")
	mustExec(t, c[1], "ROLLBACK")

	var mu sync.Mutex
	var taken []int
	var wg sync.WaitGroup
	for w, conn := range c {
		wg.Go(func() {
			for {
				var id int
				err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
					if err := tx.QueryRow(ctx, next).Scan(&id); err != nil {
						return err
					}
					_, err := tx.Exec(ctx, "UPDATE jobs SET done_by = $1 WHERE id = $2", w, id)
					return err
				})
				if err == pgx.ErrNoRows {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				taken = append(taken, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(taken)
	if len(taken) != jobs || len(slices.Compact(taken)) != jobs {
		t.Fatalf("workers took %d jobs (%v), want each of %d once", len(taken), taken, jobs)
	}
	if n := count(t, c[0], "SELECT count(*) FROM jobs WHERE done_by IS NULL"); n != 0 {
		t.Fatalf("%d jobs left undone", n)
	}
}

// NOWAIT fails at once with 55P03; FOR SHARE lets FOR SHARE in and keeps
// writers out.
func TestRowLockModesFromSQL(t *testing.T) {
	c := lockConns(t, 3, "CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 10), (2, 20)")
	ctx := context.Background()
	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT v FROM t WHERE id = 1 FOR UPDATE")
	_, err := c[1].Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR SHARE NOWAIT")
	if code := sqlstate(err); code != "55P03" {
		t.Fatalf("NOWAIT on a locked row: %v (%s), want 55P03", err, code)
	}
	if n := count(t, c[1], "SELECT v FROM t WHERE id = 2 FOR UPDATE NOWAIT"); n != 20 {
		t.Fatalf("another row: %d", n)
	}
	mustExec(t, c[0], "COMMIT")

	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT v FROM t WHERE id = 1 FOR SHARE")
	mustExec(t, c[1], "BEGIN")
	count(t, c[1], "SELECT v FROM t WHERE id = 1 FOR SHARE NOWAIT")
	done := blocked(t, c[2], "UPDATE t SET v = 11 WHERE id = 1")
	mustExec(t, c[0], "COMMIT")
	mustExec(t, c[1], "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A plain reader never waits for a lock.
	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT v FROM t WHERE id = 1 FOR UPDATE")
	if n := count(t, c[1], "SELECT v FROM t WHERE id = 1"); n != 11 {
		t.Fatalf("reader saw %d", n)
	}
	mustExec(t, c[0], "COMMIT")
}

// Under READ COMMITTED a locking read that waited for a writer re-checks
// its WHERE clause and join conditions on the new version, and returns
// the new values; under REPEATABLE READ it fails with 40001.
func TestLockingReadRechecks(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 10), (2, 20)",
		"CREATE TABLE u (id int PRIMARY KEY, tv int)", "INSERT INTO u VALUES (1, 11), (2, 20)")
	ctx := context.Background()
	query := func(q string) <-chan []int {
		out := make(chan []int, 1)
		done := blockedOn(t, q, func() error {
			rows, err := c[1].Query(ctx, q)
			if err != nil {
				return err
			}
			vs, err := pgx.CollectRows(rows, pgx.RowTo[int])
			out <- vs
			return err
		})
		go func() {
			if err := <-done; err != nil {
				t.Error(err)
				close(out)
			}
		}()
		return out
	}

	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE t SET v = v + 1")
	gone := query("SELECT v FROM t WHERE v = 10 FOR UPDATE")
	mustExec(t, c[0], "COMMIT")
	if vs := <-gone; len(vs) != 0 {
		t.Fatalf("a row that no longer matches came back: %v", vs)
	}

	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE t SET v = v + 1 WHERE id = 1")
	fresh := query("SELECT v FROM t WHERE id = 1 FOR UPDATE")
	mustExec(t, c[0], "COMMIT")
	if vs := <-fresh; !slices.Equal(vs, []int{12}) {
		t.Fatalf("got %v, want the new value [12]", vs)
	}

	// t.v is now 12 and 21, u.tv 11 and 20: both rows join. Row 2 stops
	// joining when t.v moves to 22 while the query waits for it.
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE t SET v = v + 1 WHERE id = 2")
	joined := query("SELECT t.id FROM t JOIN u ON u.tv + 1 = t.v ORDER BY t.id FOR UPDATE OF t")
	mustExec(t, c[0], "COMMIT")
	if vs := <-joined; !slices.Equal(vs, []int{1}) {
		t.Fatalf("join rows %v, want [1]: row 2's join key changed", vs)
	}

	mustExec(t, c[1], "BEGIN ISOLATION LEVEL REPEATABLE READ")
	count(t, c[1], "SELECT count(*) FROM t")
	mustExec(t, c[0], "UPDATE t SET v = 0 WHERE id = 1")
	_, err := c[1].Exec(ctx, "SELECT v FROM t WHERE id = 1 FOR UPDATE")
	if code := sqlstate(err); code != "40001" {
		t.Fatalf("REPEATABLE READ locking a changed row: %v (%s), want 40001", err, code)
	}
	mustExec(t, c[1], "ROLLBACK")
}

// A cursor's rows are fetched in later messages than its DECLARE, whose
// context has ended by then; FOR UPDATE cursors lock as they fetch.
func TestCursorFetchInLaterMessages(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY)", "INSERT INTO t SELECT generate_series(1, 5)")
	ctx := context.Background()
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "DECLARE cur CURSOR FOR SELECT id FROM t FOR UPDATE")
	if n := count(t, c[0], "FETCH 1 FROM cur"); n != 1 {
		t.Fatalf("first FETCH: %d", n)
	}
	if n := count(t, c[0], "FETCH 1 FROM cur"); n != 2 {
		t.Fatalf("second FETCH: %d", n)
	}
	if _, err := c[1].Exec(ctx, "SELECT id FROM t WHERE id = 2 FOR UPDATE NOWAIT"); sqlstate(err) != "55P03" {
		t.Fatalf("a fetched row is not locked: %v", err)
	}
	if n := count(t, c[1], "SELECT id FROM t WHERE id = 3 FOR UPDATE NOWAIT"); n != 3 {
		t.Fatalf("a row not yet fetched: %d", n)
	}
	mustExec(t, c[0], "COMMIT")
}

// The READ COMMITTED re-check keeps the rows a LEFT JOIN padded with
// NULLs, and pads a row whose join condition no longer holds.
func TestLockingReadRechecksLeftJoin(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE a (id int PRIMARY KEY, v int)", "INSERT INTO a VALUES (1, 0), (3, 0)",
		"CREATE TABLE l (id int PRIMARY KEY, a int)", "INSERT INTO l VALUES (1, 1)")
	ctx := context.Background()
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE a SET v = 1")
	type pair struct{ a, l *int }
	var got []pair
	done := blockedOn(t, "a locking LEFT JOIN", func() error {
		rows, err := c[1].Query(ctx, "SELECT a.id, l.id FROM a LEFT JOIN l ON l.a = a.id AND a.v = 0 ORDER BY a.id FOR UPDATE OF a")
		if err != nil {
			return err
		}
		got, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (pair, error) {
			var p pair
			return p, r.Scan(&p.a, &p.l)
		})
		return err
	})
	mustExec(t, c[0], "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || *got[0].a != 1 || got[0].l != nil || *got[1].a != 3 || got[1].l != nil {
		t.Fatalf("got %d rows, want (1, NULL) and (3, NULL): the re-check pads, it does not drop", len(got))
	}
}

// A locking clause that reaches a view or a subquery in FROM is refused
// rather than lock every row the inner query returns.
func TestLockingThroughViewRefused(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE t (id int PRIMARY KEY)", "CREATE VIEW v AS SELECT id FROM t")
	for _, q := range []string{
		"SELECT * FROM v WHERE id = 1 FOR UPDATE",
		"SELECT * FROM (SELECT id FROM t) s FOR SHARE",
		"SELECT * FROM t, v FOR UPDATE OF v",
	} {
		if _, err := c[0].Exec(context.Background(), q); sqlstate(err) != "0A000" {
			t.Errorf("%s: %v, want 0A000", q, err)
		}
	}
}

// An error in a transaction block ends the transaction at once, as in
// PostgreSQL: its row locks go before the client's ROLLBACK. With a
// savepoint, only the savepoint's part ends.
func TestFailedBlockReleasesLocks(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 0), (2, 0)")
	ctx := context.Background()
	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT v FROM t WHERE id = 1 FOR UPDATE")
	if _, err := c[0].Exec(ctx, "SELECT 1 / 0"); sqlstate(err) != "22012" {
		t.Fatalf("1/0: %v", err)
	}
	if n := count(t, c[1], "SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT"); n != 1 {
		t.Fatalf("locked row: %d", n)
	}
	if _, err := c[0].Exec(ctx, "SELECT 1"); sqlstate(err) != "25P02" {
		t.Fatalf("a statement in the failed block: %v, want 25P02", err)
	}
	mustExec(t, c[0], "COMMIT") // rolls back, as in PostgreSQL

	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "UPDATE t SET v = 1 WHERE id = 1")
	mustExec(t, c[0], "SAVEPOINT s")
	count(t, c[0], "SELECT v FROM t WHERE id = 2 FOR UPDATE")
	if _, err := c[0].Exec(ctx, "SELECT 1 / 0"); err == nil {
		t.Fatal("1/0 succeeded")
	}
	if n := count(t, c[1], "SELECT id FROM t WHERE id = 2 FOR UPDATE NOWAIT"); n != 2 {
		t.Fatalf("row locked in the failed savepoint: %d", n)
	}
	if _, err := c[1].Exec(ctx, "SELECT id FROM t WHERE id = 1 FOR UPDATE NOWAIT"); sqlstate(err) != "55P03" {
		t.Fatalf("row written before the savepoint: %v, want still locked", err)
	}
	mustExec(t, c[0], "ROLLBACK TO s")
	mustExec(t, c[0], "COMMIT")
	if n := count(t, c[1], "SELECT v FROM t WHERE id = 1"); n != 1 {
		t.Fatalf("the write before the savepoint: v = %d, want 1", n)
	}
}

// ROLLBACK TO SAVEPOINT frees the rows written and locked since the
// savepoint at once: their waiters go on without waiting for the whole
// transaction, so the rest of it can wait for them in turn without a
// deadlock. An error inside the savepoint frees them the same way.
func TestRollbackToSavepointFreesRows(t *testing.T) {
	for _, undo := range []string{"ROLLBACK TO SAVEPOINT s", "error"} {
		t.Run(undo, func(t *testing.T) {
			c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, v int)", "INSERT INTO t VALUES (1, 0), (2, 0)")
			for _, conn := range c {
				mustExec(t, conn, "SET lock_timeout = '20s'") // a wrong wait fails instead of hanging
			}
			mustExec(t, c[0], "BEGIN")
			mustExec(t, c[0], "SAVEPOINT s")
			mustExec(t, c[0], "UPDATE t SET v = 1 WHERE id = 1")
			mustExec(t, c[0], "SELECT * FROM t WHERE id = 2 FOR UPDATE")
			mustExec(t, c[1], "BEGIN")
			first := blocked(t, c[1], "UPDATE t SET v = 2 WHERE id = 1")
			if undo == "error" {
				if _, err := c[0].Exec(context.Background(), "SELECT 1/0"); sqlstate(err) != "22012" {
					t.Fatalf("1/0: %v", err)
				}
			}
			mustExec(t, c[0], "ROLLBACK TO SAVEPOINT s")
			if err := <-first; err != nil {
				t.Fatalf("the waiter after %s: %v", undo, err)
			}
			mustExec(t, c[1], "UPDATE t SET v = 2 WHERE id = 2") // the savepoint's FOR UPDATE went too
			second := blocked(t, c[0], "UPDATE t SET v = 1 WHERE id = 1")
			mustExec(t, c[1], "COMMIT")
			if err := <-second; err != nil {
				t.Fatal(err)
			}
			mustExec(t, c[0], "COMMIT")
			if n := count(t, c[1], "SELECT sum(v) FROM t"); n != 3 {
				t.Fatalf("sum(v) = %d, want 3", n)
			}
		})
	}
}
