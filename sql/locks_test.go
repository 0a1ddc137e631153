package sql_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// lockConns opens n connections to one served database and runs setup on
// the first.
func lockConns(t *testing.T, n int, setup ...string) []*pgx.Conn {
	t.Helper()
	url := serve(t)
	ctx := context.Background()
	var conns []*pgx.Conn
	for range n {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close(context.Background()) })
		conns = append(conns, c)
	}
	for _, q := range setup {
		if _, err := conns[0].Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return conns
}

// mustExec runs q on c or fails the test.
func mustExec(t *testing.T, c *pgx.Conn, q string) {
	t.Helper()
	if _, err := c.Exec(context.Background(), q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// blocked starts q on c and checks that it is still waiting a moment
// later; the returned channel yields its error once it finishes.
func blocked(t *testing.T, c *pgx.Conn, q string) <-chan error {
	t.Helper()
	return blockedOn(t, q, func() error {
		_, err := c.Exec(context.Background(), q)
		return err
	})
}

// blockedOn starts run and checks that it is still waiting a moment
// later; the returned channel yields its error once it finishes.
func blockedOn(t *testing.T, what string, run func() error) <-chan error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- run() }()
	select {
	case err := <-done:
		t.Fatalf("%s finished (%v) while it should wait for a lock", what, err)
	case <-time.After(100 * time.Millisecond):
	}
	return done
}

// waitsOut runs held in a transaction on holder, checks that q on waiter
// waits for it, commits, and checks that q then succeeds.
func waitsOut(t *testing.T, holder *pgx.Conn, held string, waiter *pgx.Conn, q string) {
	t.Helper()
	mustExec(t, holder, "BEGIN")
	mustExec(t, holder, held)
	done := blocked(t, waiter, q)
	mustExec(t, holder, "COMMIT")
	if err := <-done; err != nil {
		t.Fatalf("%s, after waiting for %s: %v", q, held, err)
	}
}

func count(t *testing.T, c *pgx.Conn, q string) int {
	t.Helper()
	var n int
	if err := c.QueryRow(context.Background(), q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// CREATE INDEX waits for the transactions writing its table, and its
// entries include their rows.
func TestCreateIndexWaitsForWriters(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, k int)", "INSERT INTO t VALUES (1, 7)")
	waitsOut(t, c[0], "INSERT INTO t VALUES (2, 7)", c[1], "CREATE INDEX t_k ON t (k)")
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE k = 7"); n != 2 {
		t.Fatalf("the index finds %d rows with k = 7, want 2", n)
	}
}

// A writer waits for a DDL transaction on its table, then writes under the
// new catalog: into the new index, and into a rewritten table.
func TestWritersWaitForDDL(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, k int)", "INSERT INTO t VALUES (1, 7)")
	waitsOut(t, c[0], "CREATE INDEX t_k ON t (k)", c[1], "INSERT INTO t VALUES (2, 7)")
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE k = 7"); n != 2 {
		t.Fatalf("the index finds %d rows with k = 7, want 2", n)
	}

	// ALTER TABLE ... ADD COLUMN with a default rewrites the table under a
	// new data id: a waiting INSERT must land there, default filled in.
	waitsOut(t, c[0], "ALTER TABLE t ADD COLUMN z int DEFAULT 5", c[1], "INSERT INTO t (id, k) VALUES (3, 8)")
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE z = 5"); n != 3 {
		t.Fatalf("%d rows with z = 5 after the rewrite, want 3", n)
	}

	// COPY FROM waits the same way.
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "TRUNCATE t")
	copied := make(chan error, 1)
	go func() {
		_, err := c[1].CopyFrom(context.Background(), pgx.Identifier{"t"}, []string{"id", "k"},
			pgx.CopyFromRows([][]any{{int32(10), int32(1)}}))
		copied <- err
	}()
	time.Sleep(100 * time.Millisecond)
	mustExec(t, c[0], "COMMIT")
	if err := <-copied; err != nil {
		t.Fatal(err)
	}
	if n := count(t, c[1], "SELECT count(*) FROM t"); n != 1 {
		t.Fatalf("%d rows after TRUNCATE and a waiting COPY, want 1", n)
	}
}

// Table locks and row locks share one waits-for graph: a cycle through
// both fails one transaction with 40P01 instead of hanging.
func TestTableLockDeadlock(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE a (id int PRIMARY KEY)", "CREATE TABLE b (id int PRIMARY KEY)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "INSERT INTO a VALUES (1)")
	mustExec(t, c[1], "BEGIN")
	mustExec(t, c[1], "INSERT INTO b VALUES (1)")
	first := blocked(t, c[0], "CREATE INDEX ON b (id)") // waits for c[1]'s write lock on b
	_, err := c[1].Exec(context.Background(), "CREATE INDEX ON a (id)")
	if err == nil {
		err = <-first
	} else {
		mustExec(t, c[1], "ROLLBACK")
		if err := <-first; err != nil {
			t.Fatalf("the survivor failed too: %v", err)
		}
	}
	if code := sqlstate(err); code != "40P01" {
		t.Fatalf("%v (%s), want 40P01", err, code)
	}
}

// Under REPEATABLE READ, DDL that would read a table changed after the
// snapshot fails with 40001 rather than miss the change.
func TestRepeatableReadDDLSeesNoLaterRows(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, k int)")
	mustExec(t, c[0], "BEGIN ISOLATION LEVEL REPEATABLE READ")
	count(t, c[0], "SELECT count(*) FROM t")
	mustExec(t, c[1], "INSERT INTO t VALUES (1, 7)")
	_, err := c[0].Exec(context.Background(), "CREATE INDEX ON t (k)")
	if code := sqlstate(err); code != "40001" {
		t.Fatalf("%v (%s), want 40001", err, code)
	}
}

// DROP INDEX waits for the table's writers, so their entries go with the
// index and cannot turn up in a later index that takes its id.
func TestDropIndexWaitsForWriters(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, a int, b int)", "CREATE INDEX i ON t (a)")
	waitsOut(t, c[0], "INSERT INTO t VALUES (1, 5, 7)", c[1], "DROP INDEX i")
	mustExec(t, c[1], "CREATE INDEX j ON t (b)")
	mustExec(t, c[1], "DELETE FROM t WHERE id = 1")
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE b = 5"); n != 0 {
		t.Fatalf("%d rows with b = 5, want 0", n)
	}
}

// A transaction that already writes a table writes it again even while
// DDL waits for it: the DDL waits, nobody deadlocks.
func TestWriterKeepsItsLockWhileDDLWaits(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, a int)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "INSERT INTO t VALUES (1, 1)")
	done := blocked(t, c[1], "CREATE INDEX ON t (a)")
	mustExec(t, c[0], "INSERT INTO t VALUES (2, 1)")
	mustExec(t, c[0], "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE a = 1"); n != 2 {
		t.Fatalf("the index finds %d rows, want 2", n)
	}
}

// A REPEATABLE READ snapshot older than an index does not read it: rows it
// sees may have no entries there.
func TestOldSnapshotSkipsNewIndex(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, a int, b int)", "INSERT INTO t VALUES (1, 5, 0)")
	mustExec(t, c[0], "BEGIN ISOLATION LEVEL REPEATABLE READ")
	if n := count(t, c[0], "SELECT count(*) FROM t WHERE a = 5"); n != 1 {
		t.Fatalf("%d rows before the index, want 1", n)
	}
	mustExec(t, c[1], "DELETE FROM t WHERE id = 1")
	mustExec(t, c[1], "CREATE INDEX t_a ON t (a)")
	if n := count(t, c[0], "SELECT count(*) FROM t WHERE a = 5"); n != 1 {
		t.Fatalf("the old snapshot finds %d rows through the new index, want 1", n)
	}
	mustExec(t, c[0], "COMMIT")
	if n := count(t, c[0], "SELECT count(*) FROM t WHERE a = 5"); n != 0 {
		t.Fatalf("a new snapshot finds %d rows, want 0", n)
	}
}

// After COPY in a block, SET TRANSACTION ISOLATION LEVEL is too late, as in
// PostgreSQL: it fails instead of silently starting the block over.
func TestSetTransactionAfterCopy(t *testing.T) {
	c := lockConns(t, 1, "CREATE TABLE t (id int PRIMARY KEY)")
	mustExec(t, c[0], "BEGIN")
	if _, err := c[0].CopyFrom(context.Background(), pgx.Identifier{"t"}, []string{"id"},
		pgx.CopyFromRows([][]any{{int32(1)}, {int32(2)}})); err != nil {
		t.Fatal(err)
	}
	_, err := c[0].Exec(context.Background(), "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
	if code := sqlstate(err); code != "25001" {
		t.Fatalf("%v (%s), want 25001", err, code)
	}
}

// Two sessions upserting one key: the second waits for the first's
// insert to commit, then updates the row instead of failing with 23505.
func TestConcurrentUpsertWaits(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE kv (k int PRIMARY KEY, n int)")
	const upsert = "INSERT INTO kv VALUES (1, 1) ON CONFLICT (k) DO UPDATE SET n = kv.n + excluded.n"
	waitsOut(t, c[0], upsert, c[1], upsert)
	if n := count(t, c[1], "SELECT n FROM kv WHERE k = 1"); n != 2 {
		t.Fatalf("n = %d after two upserts, want 2", n)
	}
	waitsOut(t, c[0], "INSERT INTO kv VALUES (2, 1) ON CONFLICT DO NOTHING", c[1], "INSERT INTO kv VALUES (2, 5) ON CONFLICT DO NOTHING")
	if n := count(t, c[1], "SELECT n FROM kv WHERE k = 2"); n != 1 {
		t.Fatalf("n = %d, want the first insert's 1", n)
	}
}

// Sessions racing to upsert the same fresh keys never see their arbiter's
// 23505, nor lose an upsert to a concurrent DELETE: a lost race is retried,
// as PostgreSQL's speculative insertion does.
func TestRacingUpserts(t *testing.T) {
	for name, ddl := range map[string]string{
		"primary_key":  "CREATE TABLE u (k int PRIMARY KEY, n int)",
		"unique_index": "CREATE TABLE u (k int, n int); CREATE UNIQUE INDEX u_k ON u (k)",
		"unique_col":   "CREATE TABLE u (id serial PRIMARY KEY, k int UNIQUE, n int)",
	} {
		t.Run(name, func(t *testing.T) {
			const sessions, keys = 4, 40
			c := lockConns(t, sessions+1, strings.Split(ddl, "; ")...)
			var wg sync.WaitGroup
			errs := make(chan error, sessions+1)
			for s := range sessions {
				wg.Go(func() {
					for k := range keys {
						q := "INSERT INTO u (k, n) VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = u.n + 1"
						if s%2 == 1 {
							q = "INSERT INTO u (k, n) VALUES ($1, 1) ON CONFLICT (k) DO NOTHING"
						}
						tag, err := c[s].Exec(context.Background(), q, k)
						if err != nil {
							errs <- err
							return
						}
						if s%2 == 0 && tag.RowsAffected() != 1 {
							errs <- fmt.Errorf("upsert of %d: %s, want one row affected", k, tag)
							return
						}
					}
				})
			}
			wg.Go(func() { // deletes race the upserts
				for k := range keys {
					if _, err := c[sessions].Exec(context.Background(), "DELETE FROM u WHERE k = $1", k); err != nil {
						errs <- err
						return
					}
				}
			})
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if n := count(t, c[0], "SELECT count(*) - count(DISTINCT k) FROM u"); n != 0 {
				t.Fatalf("%d duplicate keys", n)
			}
		})
	}
}

// A reader waits for a DDL transaction that rewrites or drops what it
// reads, and then reads the new table: never the abandoned data id, which
// would look empty.
func TestReadersWaitForDDL(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, k int)", "INSERT INTO t VALUES (1, 7), (2, 7), (3, 8)")
	waitsOut(t, c[0], "ALTER TABLE t ADD COLUMN z int DEFAULT 5", c[1], "SELECT count(*) FROM t")
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE z = 5"); n != 3 {
		t.Fatalf("%d rows with z = 5 after the rewrite, want 3", n)
	}

	// A reader planned to use an index waits for its DROP INDEX, then
	// scans the table instead.
	mustExec(t, c[1], "CREATE INDEX t_k ON t (k)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "DROP INDEX t_k")
	var n int
	done := blockedOn(t, "a reader of the index", func() error {
		return c[1].QueryRow(context.Background(), "SELECT count(*) FROM t WHERE k = 7").Scan(&n)
	})
	mustExec(t, c[0], "COMMIT")
	if err := <-done; err != nil || n != 2 {
		t.Fatalf("%d rows with k = 7 after DROP INDEX (%v), want 2", n, err)
	}

	// Views, subqueries and COPY TO read their tables too.
	mustExec(t, c[1], "CREATE VIEW v AS SELECT id FROM t")
	waitsOut(t, c[0], "ALTER TABLE t ADD COLUMN y int DEFAULT 1", c[1], "SELECT count(*) FROM v")
	waitsOut(t, c[0], "ALTER TABLE t ADD COLUMN x int DEFAULT 1", c[1], "SELECT 1 WHERE EXISTS (SELECT 1 FROM t)")
	mustExec(t, c[0], "BEGIN")
	mustExec(t, c[0], "ALTER TABLE t ADD COLUMN w int DEFAULT 1")
	copied := blockedOn(t, "COPY TO", func() error {
		_, err := c[1].PgConn().CopyTo(context.Background(), io.Discard, "COPY t TO STDOUT")
		return err
	})
	mustExec(t, c[0], "COMMIT")
	if err := <-copied; err != nil {
		t.Fatal(err)
	}
}

// DDL that rewrites or drops a table waits for the transactions reading
// it, as PostgreSQL's ACCESS EXCLUSIVE lock waits for ACCESS SHARE; CREATE
// INDEX does not.
func TestDDLWaitsForReaders(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, k int)", "INSERT INTO t VALUES (1, 7)")
	waitsOut(t, c[0], "SELECT count(*) FROM t", c[1], "ALTER TABLE t ADD COLUMN z int DEFAULT 5")
	waitsOut(t, c[0], "SELECT count(*) FROM t", c[1], "TRUNCATE t")

	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT count(*) FROM t")
	mustExec(t, c[1], "CREATE INDEX t_k ON t (k)") // would hang here if it waited
	mustExec(t, c[0], "COMMIT")
}

// Readers racing table rewrites always count every row: whichever side of
// a rewrite they read, the catalog and the snapshot agree.
func TestReadersRaceRewrites(t *testing.T) {
	const rows, readers, rewrites = 50, 3, 30
	c := lockConns(t, readers+1, "CREATE TABLE t (id int PRIMARY KEY)",
		fmt.Sprintf("INSERT INTO t SELECT generate_series(1, %d)", rows))
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for _, r := range c[1:] {
		wg.Go(func() {
			for ctx.Err() == nil {
				var n int
				if err := r.QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil {
					errs <- err
					return
				}
				if n != rows {
					errs <- fmt.Errorf("a reader counted %d rows, want %d", n, rows)
					return
				}
			}
		})
	}
	for i := range rewrites {
		mustExec(t, c[0], fmt.Sprintf("ALTER TABLE t ADD COLUMN c%d int DEFAULT %d", i, i))
	}
	stop()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// A transaction that read a table may go on to write it while DDL waits
// for it, as PostgreSQL lets a held lock's holder pass a waiting request:
// the DDL waits, nobody deadlocks.
func TestReaderUpgradesPastWaitingDDL(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, a int)")
	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT count(*) FROM t")
	done := blocked(t, c[1], "ALTER TABLE t ADD COLUMN z int DEFAULT 0")
	mustExec(t, c[0], "INSERT INTO t VALUES (1, 1)")
	mustExec(t, c[0], "COMMIT")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE z = 0"); n != 1 {
		t.Fatalf("%d rows rewritten, want 1", n)
	}
}

// A DDL that fails while waiting for a table's users gives up its claim:
// the table does not stay blocked until its transaction ends.
func TestFailedDDLReleasesItsClaim(t *testing.T) {
	c := lockConns(t, 3, "CREATE TABLE t (id int PRIMARY KEY)")
	mustExec(t, c[0], "BEGIN")
	count(t, c[0], "SELECT count(*) FROM t")
	mustExec(t, c[1], "BEGIN")
	mustExec(t, c[1], "SET LOCAL statement_timeout = '100ms'")
	if _, err := c[1].Exec(context.Background(), "ALTER TABLE t ADD COLUMN z int"); sqlstate(err) != "57014" {
		t.Fatalf("ALTER TABLE under statement_timeout: %v", err)
	}
	mustExec(t, c[0], "COMMIT")
	if n := count(t, c[2], "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("count = %d", n)
	}
	mustExec(t, c[1], "ROLLBACK")
}

// EXPLAIN ANALYZE runs its statement, so it takes the statement's table
// locks: DDL waits for the writes of an EXPLAIN ANALYZE UPDATE, and an
// EXPLAIN ANALYZE INSERT waits for DDL, then writes under the new
// catalog.
func TestExplainAnalyzeTakesTableLocks(t *testing.T) {
	c := lockConns(t, 2, "CREATE TABLE t (id int PRIMARY KEY, k int)", "INSERT INTO t VALUES (1, 7)")
	waitsOut(t, c[0], "EXPLAIN ANALYZE UPDATE t SET k = 8 WHERE id = 1", c[1], "ALTER TABLE t ADD COLUMN z int DEFAULT 5")
	waitsOut(t, c[0], "ALTER TABLE t ADD COLUMN w int DEFAULT 6", c[1], "EXPLAIN ANALYZE INSERT INTO t (id, k) VALUES (2, 9)")
	if n := count(t, c[1], "SELECT count(*) FROM t WHERE k IN (8, 9) AND z = 5 AND w = 6"); n != 2 {
		t.Fatalf("%d rows written through EXPLAIN ANALYZE under the new columns, want 2", n)
	}
}
